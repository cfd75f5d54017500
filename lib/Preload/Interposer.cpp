//===- Interposer.cpp - What becomes of an intercepted launch -------------===//
//
// A kernel is looked up once, at its first launch: its name (the driver
// takes CUfunction and CUkernel handles alike at the launch entry points,
// so both name queries are tried), its record in the side modules, the
// side module's image (loaded whole into the scheduler's context), and a
// check that the variant takes the parameters the program passes, so that
// a side module built from another library can never make the copy of the
// arguments read past them.
//
//===----------------------------------------------------------------------===//
#include "Interposer.h"

#include "LaunchRouter.h"
#include "RealDriver.h"
#include "Report.h"

#include "baton/Capture.h"

#include <cstdlib>
#include <cstring>

using namespace baton;
using namespace baton::preload;
using namespace baton::sched;
namespace fs = std::filesystem;

std::atomic<Interposer *> Interposer::Instance{nullptr};

namespace {

template <class Fn> Fn driverFunction(const char *Name) {
  return reinterpret_cast<Fn>(driverSymbol(Name));
}

std::string kernelName(CUfunction F) {
  static auto FuncGetName =
      driverFunction<decltype(&cuFuncGetName)>("cuFuncGetName");
  static auto KernelGetName =
      driverFunction<decltype(&cuKernelGetName)>("cuKernelGetName");
  const char *Name = nullptr;
  if (FuncGetName && FuncGetName(&Name, F) == CUDA_SUCCESS && Name)
    return Name;
  if (KernelGetName &&
      KernelGetName(&Name, reinterpret_cast<CUkernel>(F)) == CUDA_SUCCESS &&
      Name)
    return Name;
  return {};
}

/// The sizes of the parameters the driver reports through \p Info; nullopt
/// if it fails.
template <class InfoFn>
std::optional<std::vector<size_t>> parameterSizes(InfoFn Info) {
  std::vector<size_t> Sizes;
  for (size_t I = 0;; ++I) {
    size_t Offset = 0, Size = 0;
    CUresult R = Info(I, &Offset, &Size);
    if (R == CUDA_ERROR_INVALID_VALUE)
      return Sizes; // past the last parameter
    if (R != CUDA_SUCCESS)
      return std::nullopt;
    Sizes.push_back(Size);
  }
}

/// True if the driver reports that \p F takes parameters of the sizes
/// \p Expected, asking as of a CUfunction and as of a CUkernel.
bool takesParameters(CUfunction F, std::span<const size_t> Expected) {
  static auto FuncInfo =
      driverFunction<decltype(&cuFuncGetParamInfo)>("cuFuncGetParamInfo");
  static auto KernelInfo =
      driverFunction<decltype(&cuKernelGetParamInfo)>("cuKernelGetParamInfo");
  auto Matches = [&](const std::optional<std::vector<size_t>> &Sizes) {
    return Sizes && std::equal(Sizes->begin(), Sizes->end(), Expected.begin(),
                               Expected.end());
  };
  if (FuncInfo && Matches(parameterSizes([&](size_t I, size_t *O, size_t *S) {
        return FuncInfo(F, I, O, S);
      })))
    return true;
  return KernelInfo && Matches(parameterSizes([&](size_t I, size_t *O,
                                                  size_t *S) {
           return KernelInfo(reinterpret_cast<CUkernel>(F), I, O, S);
         }));
}

CUcontext currentContext() {
  static auto GetCurrent =
      driverFunction<decltype(&cuCtxGetCurrent)>("cuCtxGetCurrent");
  CUcontext C = nullptr;
  if (!GetCurrent || GetCurrent(&C) != CUDA_SUCCESS)
    return nullptr;
  return C;
}

const char *describe(Unchanged Why) {
  switch (Why) {
  case Unchanged::NoVariants:
    return "no variants";
  case Unchanged::ExtraArguments:
    return "arguments passed in 'extra'";
  case Unchanged::LaunchAttributes:
    return "launch attributes";
  case Unchanged::Cooperative:
    return "cooperative launch";
  case Unchanged::Graph:
    return "CUDA graph";
  case Unchanged::OtherContext:
    return "not device 0's primary context";
  case Unchanged::NotSubmitted:
    return "not accepted by the scheduler";
  case Unchanged::Captured:
    return "captured into a CUDA graph";
  }
  return "unknown";
}

std::string statusText(const side::KernelRecord &R) {
  switch (R.Status) {
  case side::KernelStatus::Refused:
    return "refused by the compiler (" + R.Reason + ": " + R.Detail + ")";
  case side::KernelStatus::SassOnly:
    return "the library ships it as SASS only (" + R.Detail + "), no PTX";
  case side::KernelStatus::Variants:
    break;
  }
  return "has variants";
}

} // namespace

CUstream DriverLaunch::stream() const {
  if (Stream)
    return Stream;
  return PerThreadStream ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
}

void Interposer::startFromEnvironment() {
  std::optional<PriorityClass> Class = scheduleFromEnvironment();
  if (!Class)
    return;
  // Only best-effort work leaves streams waiting on the device; a
  // latency-critical process (PyTorch inference) keeps the driver's lazy
  // loading and its start-up time.
  if (*Class == PriorityClass::BestEffort)
    prepareDriverForScheduling();
  // Never destroyed: launches may come until the very end of the process.
  Instance.store(new Interposer(*Class), std::memory_order_release);
}

Interposer::Interposer(PriorityClass Class) : Class(Class) {
  if (Class == PriorityClass::BestEffort)
    SideModules.emplace();
  if (verbose())
    std::atexit([] { Instance.load()->printSummary(); });
}

Interposer::KernelState &Interposer::stateOf(CUfunction Function) {
  auto [It, New] = Kernels.try_emplace(Function);
  if (New)
    It->second.Name = kernelName(Function);
  return It->second;
}

Module &Interposer::image(const fs::path &Path) {
  auto It = Images.find(Path);
  if (It == Images.end()) {
    LaunchRouter &LR = *LaunchRouter::get();
    // A load made while a launch waits paused never returns
    // (LaunchRouter::holdForModuleLoad).
    auto Hold = LR.holdForModuleLoad();
    It = Images.emplace(Path, LR.runtime().loadFile(Path)).first;
  }
  return It->second;
}

void Interposer::resolve(CUfunction Function, KernelState &K) {
  K.Resolved = true;
  if (K.Name.empty()) {
    K.WhyNot = "the driver does not name it";
    return;
  }
  std::optional<SideKernel> Found = SideModules->find(K.Name);
  if (!Found) {
    K.WhyNot = "it is in no side module (baton-recompile its library)";
    return;
  }
  if (Found->Record->Status != side::KernelStatus::Variants) {
    K.WhyNot = statusText(*Found->Record);
    return;
  }
  if (!LaunchRouter::get()) {
    K.WhyNot = "the scheduler did not start";
    return;
  }
  try {
    Kernel Baton = image(Found->Dir / Found->Record->Image).kernel(K.Name);
    if (!takesParameters(Function, Baton.paramSizes())) {
      K.WhyNot = "the driver does not report the parameters of the side "
                 "module's kernel (was it built from another library?)";
      return;
    }
    K.Baton = std::move(Baton);
  } catch (const std::exception &E) {
    K.WhyNot = std::string("its side module cannot be used: ") + E.what();
    return;
  }
  if (verbose())
    report("kernel '" + K.Name + "': " +
           (K.Baton->hasVariant(Mode::Ptb) ? "PTB and slice variants"
                                           : "slice variant only") +
           " from " + Found->Dir.string() + " (" + Found->Origin + ")");
}

void Interposer::count(KernelState *K, Unchanged Why) {
  ++UnchangedCount[unsigned(Why)];
  if (!verbose())
    return;
  unsigned &Bits = Reported[K ? K->Name : std::string()];
  unsigned Bit = 1u << unsigned(Why);
  if (Bits & Bit)
    return;
  Bits |= Bit;
  if (!K) {
    report(std::string("launches run unchanged: ") + describe(Why));
    return;
  }
  std::string Detail = Why == Unchanged::NoVariants ? K->WhyNot : describe(Why);
  report("kernel '" + (K->Name.empty() ? "?" : K->Name) +
         "' runs unchanged: " + Detail);
}

void Interposer::unchanged(CUfunction Function, Unchanged Why) {
  std::lock_guard Lock(Mutex);
  count(Function ? &stateOf(Function) : nullptr, Why);
}

std::optional<CUresult> Interposer::schedule(const DriverLaunch &L) {
  if (Class != PriorityClass::BestEffort)
    return std::nullopt;
  // Captured as it is, before anything is looked up: a first launch would
  // load the side module here (baton/Capture.h).
  if (streamCapturing(L.stream())) {
    unchanged(L.Function, Unchanged::Captured);
    return std::nullopt;
  }
  std::optional<Kernel> K;
  {
    std::lock_guard Lock(Mutex);
    KernelState &S = stateOf(L.Function);
    if (!L.Params) {
      count(&S, Unchanged::ExtraArguments);
      return std::nullopt;
    }
    if (!S.Resolved) {
      // Loading a side module must not break another thread's capture.
      RelaxedCaptureMode Relaxed;
      resolve(L.Function, S);
    }
    if (!S.Baton) {
      count(&S, Unchanged::NoVariants);
      return std::nullopt;
    }
    K = S.Baton;
  }
  LaunchRouter *Router = LaunchRouter::get(); // started by resolve()
  if (currentContext() != Router->runtime().context()) {
    unchanged(L.Function, Unchanged::OtherContext);
    return std::nullopt;
  }
  RoutedLaunch Routed{L.Grid, L.Block, L.SharedMemBytes, L.stream(), L.Params};
  switch (Router->submit(*K, Routed, PriorityClass::BestEffort)) {
  case LaunchRouter::Submitted::Scheduled:
    ++Scheduled;
    return CUDA_SUCCESS;
  case LaunchRouter::Submitted::Capturing:
    unchanged(L.Function, Unchanged::Captured);
    return std::nullopt;
  case LaunchRouter::Submitted::Failed:
    break;
  }
  unchanged(L.Function, Unchanged::NotSubmitted);
  return std::nullopt;
}

baton_share Interposer::share() {
  std::call_once(ShareJoined, [this] {
    // As the launch router does for the launches it schedules: BATON_SHARE=0
    // opts out, and the membership lasts as long as the process.
    if (const char *V = std::getenv("BATON_SHARE"); V && !std::strcmp(V, "0"))
      return;
    if (baton_share_join(nullptr, 0, BATON_SHARE_LATENCY_CRITICAL, nullptr,
                         &Share) != BATON_SHARE_OK) {
      report(std::string("not sharing the GPU with other processes: ") +
             baton_share_last_error());
      Share = nullptr;
    }
  });
  return Share;
}

uint64_t Interposer::announce(CUstream Stream) {
  if (Class != PriorityClass::LatencyCritical)
    return 0;
  // Its end, queued on the stream, would be captured into the graph too.
  if (streamCapturing(Stream)) {
    ++CapturedUnannounced;
    return 0;
  }
  baton_share S = share();
  uint64_t Ticket = 0;
  if (!S || baton_share_announce(S, &Ticket) != BATON_SHARE_OK)
    return 0;
  ++Announced;
  return Ticket;
}

void Interposer::issued(uint64_t Ticket, CUstream Stream, CUresult Result) {
  if (!Ticket)
    return;
  if (Result != CUDA_SUCCESS ||
      baton_share_end_on_stream(Share, Ticket, Stream) != BATON_SHARE_OK)
    baton_share_end(Share, Ticket);
}

void Interposer::printSummary() const {
  if (Class == PriorityClass::LatencyCritical) {
    report(std::to_string(Announced.load()) +
           " launches announced as latency-critical, " +
           std::to_string(CapturedUnannounced.load()) +
           " captured into CUDA graphs (their graphs' launches are)");
    return;
  }
  uint64_t Total = 0;
  std::string Reasons;
  for (unsigned I = 0; I < UnchangedKinds; ++I) {
    uint64_t N = UnchangedCount[I].load();
    Total += N;
    if (N)
      Reasons += std::string(Reasons.empty() ? "" : ", ") +
                 describe(Unchanged(I)) + " " + std::to_string(N);
  }
  report(std::to_string(Scheduled.load()) +
         " launches scheduled best-effort, " + std::to_string(Total) +
         " unchanged" + (Reasons.empty() ? "" : " (" + Reasons + ")"));
  // Scheduled is not always a variant: while no LC work is about, the
  // scheduler runs some launches as the originals (docs/scheduling.md).
  // Its own exit handler, registered after this one, has synchronized.
  if (LaunchRouter *LR = LaunchRouter::ifStarted(); LR && Scheduled.load())
    report(std::to_string(LR->service().stats().Originals) +
           " of them ran as the originals");
  if (uint64_t Held = LoadsHeld.load())
    report(std::to_string(Held) +
           " module loads made with best-effort work held back");
}

std::optional<sched::SchedulerService::BestEffortHold>
Interposer::holdForModuleLoad() {
  if (Class != PriorityClass::BestEffort)
    return std::nullopt;
  LaunchRouter *LR = LaunchRouter::ifStarted();
  if (!LR)
    return std::nullopt;
  ++LoadsHeld;
  return LR->holdForModuleLoad();
}
