//===- BypassGate.cpp - Unrouted kernels wait while LC work runs ----------===//
//
// See BypassGate.h. Locks, in the order they nest: StartMutex serialises
// start() and stop(); the GateHold's its own state (GateHold.h) and is held
// while the callbacks are turned on or off, which serialises those calls
// as CUPTI requires; ClassMutex the thread classes; KernelMutex what the
// gate knows of each kernel and stream; ListenErrorMutex CUPTI's last
// refusal. The CUPTI callback takes ClassMutex and KernelMutex only, one at
// a time, never while calling the driver.
//
//===----------------------------------------------------------------------===//
#include "BypassGate.h"

#include "DriverEntry.h"
#include "GateHold.h"
#include "LaunchRouter.h"
#include "RuntimeKernels.h"
#include "ShortRuns.h"
#include "baton/Capture.h"
#include "baton/Transform/Names.h"

#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <string_view>
#include <utility>
#include <unordered_map>

using namespace baton;
using namespace baton::python;

namespace {

/// The CUPTI entry points the gate uses, from the library start() loaded.
struct Cupti {
  decltype(&::cuptiSubscribe) Subscribe = nullptr;
  decltype(&::cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&::cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&::cuptiGetResultString) ResultString = nullptr;

  /// Empty on success, else why not.
  std::string load(const std::string &Path) {
    // PyTorch's copy if it is loaded: one CUPTI per process.
    void *Lib = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
    if (!Lib && !Path.empty())
      Lib = dlopen(Path.c_str(), RTLD_NOW);
    if (!Lib)
      Lib = dlopen("libcupti.so.13", RTLD_NOW);
    if (!Lib)
      return std::string("CUPTI (libcupti.so.13) cannot be loaded: ") +
             dlerror();
    Cupti Loaded;
    Loaded.Subscribe =
        reinterpret_cast<decltype(Subscribe)>(dlsym(Lib, "cuptiSubscribe"));
    Loaded.Unsubscribe =
        reinterpret_cast<decltype(Unsubscribe)>(dlsym(Lib, "cuptiUnsubscribe"));
    Loaded.EnableCallback = reinterpret_cast<decltype(EnableCallback)>(
        dlsym(Lib, "cuptiEnableCallback"));
    Loaded.ResultString = reinterpret_cast<decltype(ResultString)>(
        dlsym(Lib, "cuptiGetResultString"));
    if (!Loaded.Subscribe || !Loaded.Unsubscribe || !Loaded.EnableCallback ||
        !Loaded.ResultString)
      return "the loaded CUPTI lacks the callback API";
    *this = Loaded;
    return {};
  }

  std::string message(CUptiResult R) const {
    const char *S = nullptr;
    ResultString(R, &S);
    return S ? S : "CUPTI error " + std::to_string(int(R));
  }
};

/// The driver calls the gate makes (DriverEntry.h).
struct GateDriver {
  CUresult (*MemHostAlloc)(void **, size_t, unsigned) = nullptr;
  CUresult (*MemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned) = nullptr;
  CUresult (*StreamWaitValue32)(CUstream, CUdeviceptr, cuuint32_t,
                                unsigned) = nullptr;
  CUresult (*FuncGetName)(const char **, CUfunction) = nullptr;
  CUresult (*CtxPushCurrent)(CUcontext) = nullptr;
  CUresult (*CtxPopCurrent)(CUcontext *) = nullptr;

  /// Empty on success, else why not.
  std::string load() try {
    resolveDriverEntry("cuMemHostAlloc", MemHostAlloc);
    resolveDriverEntry("cuMemHostGetDevicePointer", MemHostGetDevicePointer);
    resolveDriverEntry("cuStreamWaitValue32", StreamWaitValue32);
    resolveDriverEntry("cuFuncGetName", FuncGetName);
    resolveDriverEntry("cuCtxPushCurrent", CtxPushCurrent);
    resolveDriverEntry("cuCtxPopCurrent", CtxPopCurrent);
    return {};
  } catch (const std::runtime_error &E) {
    return E.what();
  }
};

/// The launches the gate sees: every kernel and graph launch entry point.
constexpr CUpti_driver_api_trace_cbid LaunchCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

/// What a launch callback needs of the launch: its stream (as the caller
/// named it), whether a null stream is the per-thread one, and its kernel
/// (null for graphs).
struct SeenLaunch {
  CUstream Stream = nullptr;
  bool PerThread = false;
  CUfunction Function = nullptr;
};

std::optional<SeenLaunch> launchOf(CUpti_CallbackId Id, const void *Params) {
  switch (Id) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: {
    auto *P = static_cast<const cuLaunchKernel_params *>(Params);
    return SeenLaunch{P->hStream, false, P->f};
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
    auto *P = static_cast<const cuLaunchKernel_ptsz_params *>(Params);
    return SeenLaunch{P->hStream, true, P->f};
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
    auto *P = static_cast<const cuLaunchKernelEx_params *>(Params);
    return SeenLaunch{P->config ? P->config->hStream : nullptr, false, P->f};
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    auto *P = static_cast<const cuLaunchKernelEx_ptsz_params *>(Params);
    return SeenLaunch{P->config ? P->config->hStream : nullptr, true, P->f};
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
    auto *P = static_cast<const cuLaunchCooperativeKernel_params *>(Params);
    return SeenLaunch{P->hStream, false, P->f};
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
    auto *P =
        static_cast<const cuLaunchCooperativeKernel_ptsz_params *>(Params);
    return SeenLaunch{P->hStream, true, P->f};
  }
  case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch: {
    auto *P = static_cast<const cuGraphLaunch_params *>(Params);
    return SeenLaunch{P->hStream, false, nullptr};
  }
  case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz: {
    auto *P = static_cast<const cuGraphLaunch_ptsz_params *>(Params);
    return SeenLaunch{P->hStream, true, nullptr};
  }
  default:
    return std::nullopt;
  }
}

struct Gate {
  Cupti Api;
  GateDriver Driver;
  CUcontext Context = nullptr;
  /// Mapped host memory, never freed; null until the first start().
  std::atomic<volatile uint32_t *> Word{nullptr};
  CUdeviceptr WordOnDevice = 0;
  CUpti_SubscriberHandle Subscriber = nullptr;
  /// Subscribed: launches are gated (read by the callback).
  std::atomic<bool> On{false};
  std::string Why = "not started"; ///< with StartMutex
  std::mutex StartMutex;           ///< start() and stop()
  /// When the word is set and when the gate listens (GateHold.h).
  GateHold Hold{[this](uint32_t V) { setWord(V); },
                [this](bool L) { return listen(L); }};

  std::mutex ClassMutex;
  std::unordered_map<uint64_t, BypassGate::ThreadClass> Classes;
  BypassGate::ThreadClass DefaultClass = BypassGate::ThreadClass::None;
  std::atomic<uint64_t> ClassEpoch{1};

  /// What the gate knows of one kernel.
  struct Kernel {
    bool Named = false;   ///< Baton and Name are set
    bool Baton = false;   ///< a variant or baton_finalize: never gated
    double ShortUs = -1;  ///< its time if known to be short, else < 0
    uint64_t Gated = 0;   ///< launches queued behind the word
    std::string Name;     ///< cuFuncGetName's, else CUPTI's symbol
  };
  std::mutex KernelMutex;
  std::unordered_map<CUfunction, Kernel> Kernels;
  uint64_t GatedGraphs = 0;        ///< with KernelMutex
  ShortRuns Runs{BypassGate::DefaultShortBudgetUs}; ///< with KernelMutex

  std::atomic<uint64_t> Gated{0};
  std::mutex ListenErrorMutex;
  /// The last failure of enableCallbacks(), cleared by a success.
  std::string ListenError;

  void setWord(uint32_t V) {
    if (volatile uint32_t *W = Word.load(std::memory_order_acquire)) {
      *W = V;
      std::atomic_thread_fence(std::memory_order_seq_cst);
    }
  }

  /// Turns the launch callbacks on or off (Subscriber set); whether all
  /// of them are as asked.
  bool enableCallbacks(bool Enable) {
    bool All = true;
    for (auto Id : LaunchCallbacks)
      if (CUptiResult R = Api.EnableCallback(
              Enable, Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, Id);
          R != CUPTI_SUCCESS) {
        All = false;
        std::lock_guard Lock(ListenErrorMutex);
        ListenError = std::string(Enable ? "turning on" : "turning off") +
                      " the launch callbacks: " + Api.message(R);
      }
    return All;
  }

  /// GateHold's listening: the callbacks on or off. Before they are back
  /// on, the short runs are forgotten: the streams queued kernels unseen.
  bool listen(bool Listen) {
    if (Listen) {
      std::lock_guard Lock(KernelMutex);
      Runs.clear();
    }
    bool Done = enableCallbacks(Listen);
    if (!Done)
      enableCallbacks(!Listen); // none half on or off; tried again later
    else {
      std::lock_guard Lock(ListenErrorMutex);
      ListenError.clear();
    }
    return Done;
  }

  BypassGate::ThreadClass classOfThisThread() {
    thread_local uint64_t SeenEpoch = 0;
    thread_local BypassGate::ThreadClass Mine = BypassGate::ThreadClass::None;
    uint64_t Epoch = ClassEpoch.load(std::memory_order_acquire);
    if (Epoch != SeenEpoch) {
      std::lock_guard Lock(ClassMutex);
      auto It = Classes.find(uint64_t(pthread_self()));
      Mine = It != Classes.end() ? It->second : DefaultClass;
      SeenEpoch = ClassEpoch.load(std::memory_order_relaxed);
    }
    return Mine;
  }

  /// What the gate needs of \p F: whether it is Baton's own (the
  /// variants pause by themselves; baton_finalize ends each PTB run, and a
  /// pause must not wait behind it), and its time if known to be short
  /// (else < 0). \p Symbol is CUPTI's name for the launch: cuFuncGetName
  /// fails for a library kernel (CUkernel) that the runtime launches as a
  /// function.
  std::pair<bool, double> known(CUfunction F, const char *Symbol) {
    {
      std::lock_guard Lock(KernelMutex);
      if (auto It = Kernels.find(F); It != Kernels.end() && It->second.Named)
        return {It->second.Baton, It->second.ShortUs};
    }
    const char *Name = nullptr;
    if (Driver.FuncGetName(&Name, F) != CUDA_SUCCESS || !Name)
      Name = Symbol;
    bool Named = Name && *Name;
    bool Baton = Named && (isVariantName(Name) ||
                           std::string_view(Name) == detail::FinalizeKernelName);
    std::lock_guard Lock(KernelMutex);
    Kernel &K = Kernels[F];
    K.Named = true;
    K.Baton = Baton;
    K.Name = Named ? Name : "(unnamed)";
    return {K.Baton, K.ShortUs};
  }

  /// Whether a short kernel of \p Us goes on the stream of \p Run without
  /// a wait (ShortRuns.h); if so, it is counted in the run.
  bool ranShort(const void *Run, double Us) {
    std::lock_guard Lock(KernelMutex);
    if (!Runs.fits(Run, Us))
      return false;
    Runs.ranShort(Run, Us);
    return true;
  }

  /// A wait was queued before a launch of \p F (null: a graph) taking
  /// \p ShortUs if known to be short (else < 0) on the stream of \p Run.
  void gated(CUfunction F, const void *Run, double ShortUs) {
    std::lock_guard Lock(KernelMutex);
    Runs.waited(Run, ShortUs >= 0 ? ShortUs : 0);
    if (F)
      ++Kernels[F].Gated;
    else
      ++GatedGraphs;
  }

  void onLaunch(CUpti_CallbackId Id, const CUpti_CallbackData *Data) {
    if (Data->callbackSite != CUPTI_API_ENTER || Data->context != Context ||
        classOfThisThread() != BypassGate::ThreadClass::BestEffort)
      return;
    std::optional<SeenLaunch> L = launchOf(Id, Data->functionParams);
    if (!L)
      return;
    double ShortUs = -1;
    if (L->Function) {
      auto [Baton, Us] = known(L->Function, Data->symbolName);
      if (Baton)
        return;
      ShortUs = Us;
    }
    CUstream S = L->Stream ? L->Stream
                           : (L->PerThread ? CU_STREAM_PER_THREAD
                                           : CU_STREAM_LEGACY);
    // A capture would record the wait into the program's graph.
    if (streamCapturing(S))
      return;
    // Each thread's per-thread default stream is a stream of its own.
    thread_local const char PerThreadRun = 0;
    const void *Run = S == CU_STREAM_PER_THREAD
                          ? static_cast<const void *>(&PerThreadRun)
                          : static_cast<const void *>(S);
    if (ShortUs >= 0 && ranShort(Run, ShortUs))
      return;
    if (Driver.StreamWaitValue32(S, WordOnDevice, 0,
                                 CU_STREAM_WAIT_VALUE_EQ) == CUDA_SUCCESS) {
      Gated.fetch_add(1, std::memory_order_relaxed);
      gated(L->Function, Run, ShortUs);
    }
  }

  static void CUPTIAPI callback(void *User, CUpti_CallbackDomain Domain,
                                CUpti_CallbackId Id, const void *Data) {
    auto *G = static_cast<Gate *>(User);
    if (Domain != CUPTI_CB_DOMAIN_DRIVER_API ||
        !G->On.load(std::memory_order_acquire))
      return;
    try {
      G->onLaunch(Id, static_cast<const CUpti_CallbackData *>(Data));
    } catch (...) {
      // Nothing may leave a driver callback; the launch runs ungated.
    }
  }

  /// Empty on success, else why the gate is off (StartMutex held).
  std::string startLocked(const std::string &CuptiPath) {
    if (On.load())
      return {};
    LaunchRouter *LR = LaunchRouter::get();
    if (!LR)
      return "the runtime is not running";
    if (!Word.load()) {
      if (std::string E = Driver.load(); !E.empty())
        return E;
      Context = LR->runtime().context();
      if (Driver.CtxPushCurrent(Context) != CUDA_SUCCESS)
        return "cannot use the scheduler's context";
      void *Host = nullptr;
      CUresult R = Driver.MemHostAlloc(&Host, sizeof(uint32_t),
                                       CU_MEMHOSTALLOC_DEVICEMAP |
                                           CU_MEMHOSTALLOC_PORTABLE);
      if (R == CUDA_SUCCESS)
        R = Driver.MemHostGetDevicePointer(&WordOnDevice, Host, 0);
      CUcontext Popped;
      Driver.CtxPopCurrent(&Popped);
      if (R != CUDA_SUCCESS)
        return "cannot map the gate's word (cuMemHostAlloc)";
      *static_cast<volatile uint32_t *>(Host) = 0;
      Word.store(static_cast<volatile uint32_t *>(Host),
                 std::memory_order_release);
    }
    if (!Api.Subscribe)
      if (std::string E = Api.load(CuptiPath); !E.empty())
        return E;
    if (CUptiResult R = Api.Subscribe(&Subscriber, &Gate::callback, this);
        R != CUPTI_SUCCESS) {
      Subscriber = nullptr;
      return "CUPTI has another subscriber (a profiler or CUDA tool): " +
             Api.message(R);
    }
    if (!listen(true)) {
      Api.Unsubscribe(Subscriber);
      Subscriber = nullptr;
      std::lock_guard Lock(ListenErrorMutex);
      return "CUPTI cannot call back on launches (" + ListenError + ")";
    }
    Hold.turnOn();
    On.store(true, std::memory_order_release);
    return {};
  }
};

Gate &gate() {
  static Gate *G = new Gate; // never destroyed: CUPTI may call back at exit
  return *G;
}

} // namespace

std::string BypassGate::start(const std::string &CuptiPath,
                              std::chrono::microseconds MaxHold,
                              std::chrono::microseconds IdleAfter) {
  Gate &G = gate();
  std::lock_guard Lock(G.StartMutex);
  G.Hold.setMaxHold(MaxHold);
  G.Hold.setIdleAfter(IdleAfter);
  G.Why = G.startLocked(CuptiPath);
  return G.Why;
}

void BypassGate::stop() {
  Gate &G = gate();
  std::lock_guard Lock(G.StartMutex);
  if (!G.On.load())
    return;
  G.On.store(false, std::memory_order_release);
  G.Hold.turnOff(); // before the subscriber goes: it no longer listens
  G.Api.Unsubscribe(G.Subscriber);
  G.Subscriber = nullptr;
  G.Why = "stopped";
}

void BypassGate::setThreadClass(uint64_t Thread, ThreadClass Class) {
  Gate &G = gate();
  std::lock_guard Lock(G.ClassMutex);
  if (Class == ThreadClass::None)
    G.Classes.erase(Thread);
  else
    G.Classes[Thread] = Class;
  G.ClassEpoch.fetch_add(1, std::memory_order_release);
}

void BypassGate::clearThreadClasses() {
  Gate &G = gate();
  std::lock_guard Lock(G.ClassMutex);
  G.Classes.clear();
  G.DefaultClass = ThreadClass::None;
  G.ClassEpoch.fetch_add(1, std::memory_order_release);
}

void BypassGate::setDefaultClass(ThreadClass Class) {
  Gate &G = gate();
  std::lock_guard Lock(G.ClassMutex);
  G.DefaultClass = Class;
  G.ClassEpoch.fetch_add(1, std::memory_order_release);
}

void BypassGate::hold() { gate().Hold.hold(); }

void BypassGate::release() { gate().Hold.release(); }

void BypassGate::setShort(CUfunction F, double Us) {
  Gate &G = gate();
  std::lock_guard Lock(G.KernelMutex);
  G.Kernels[F].ShortUs = Us;
}

void BypassGate::clearShort(CUfunction F) {
  Gate &G = gate();
  std::lock_guard Lock(G.KernelMutex);
  if (auto It = G.Kernels.find(F); It != G.Kernels.end())
    It->second.ShortUs = -1;
}

void BypassGate::forget(CUfunction F) {
  Gate &G = gate();
  std::lock_guard Lock(G.KernelMutex);
  G.Kernels.erase(F);
}

void BypassGate::setShortBudget(double Us) {
  Gate &G = gate();
  std::lock_guard Lock(G.KernelMutex);
  G.Runs.setBudget(Us);
}

std::vector<std::pair<std::string, uint64_t>>
BypassGate::mostGated(size_t Count) {
  Gate &G = gate();
  // By name: one kernel loaded in several modules counts once.
  std::unordered_map<std::string, uint64_t> ByName;
  {
    std::lock_guard Lock(G.KernelMutex);
    for (const auto &[F, K] : G.Kernels)
      if (K.Gated)
        ByName[K.Name] += K.Gated;
    if (G.GatedGraphs)
      ByName["(CUDA graph)"] += G.GatedGraphs;
  }
  std::vector<std::pair<std::string, uint64_t>> Out(ByName.begin(),
                                                    ByName.end());
  std::sort(Out.begin(), Out.end(), [](const auto &A, const auto &B) {
    return A.second != B.second ? A.second > B.second : A.first < B.first;
  });
  if (Out.size() > Count)
    Out.resize(Count);
  return Out;
}

static std::string listenError(Gate &G) {
  std::lock_guard Lock(G.ListenErrorMutex);
  return G.ListenError;
}

BypassGateStats BypassGate::stats() {
  Gate &G = gate();
  std::lock_guard Lock(G.StartMutex);
  bool On = G.On.load();
  GateHold::State H = G.Hold.state();
  return {On,
          On ? std::string() : G.Why,
          G.Gated.load(),
          H.Holds,
          H.Expired,
          On && H.Listening,
          H.Sleeps,
          H.Wakes,
          listenError(G)};
}
