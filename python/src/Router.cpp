//===- Router.cpp - Launches the Python package hands to the scheduler ----===//
//
// See Router.h. Locks: Mutex guards the kernel map; BracketMutex the
// brackets and the registry membership. Neither is held while the other is
// taken, nor across a call that waits for the device. The epochs' lock is
// taken within Mutex, never the other way round; TimingMutex after Mutex
// is released.
//
//===----------------------------------------------------------------------===//
#include "Router.h"

#ifdef BATON_PYTHON_BYPASS_GATE
#include "BypassGate.h"
#endif
#include "DriverEntry.h"
#include "LaunchRouter.h"
#include "baton/Capture.h"
#include "baton/share.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

using namespace baton;
using namespace baton::python;
using namespace baton::sched;
using Steady = std::chrono::steady_clock;

namespace {

/// The driver calls the router makes itself (DriverEntry.h): stream
/// queries for the bracket watcher, events for kernel timing.
struct RouterDriver {
  CUresult (*StreamQuery)(CUstream) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*CtxGetCurrent)(CUcontext *) = nullptr;
  CUresult (*EventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*EventDestroy)(CUevent) = nullptr;
  CUresult (*EventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*EventQuery)(CUevent) = nullptr;
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent) = nullptr;

  RouterDriver() {
    resolveDriverEntry("cuStreamQuery", StreamQuery);
    resolveDriverEntry("cuCtxSetCurrent", CtxSetCurrent);
    resolveDriverEntry("cuCtxGetCurrent", CtxGetCurrent);
    resolveDriverEntry("cuEventCreate", EventCreate);
    resolveDriverEntry("cuEventDestroy", EventDestroy);
    resolveDriverEntry("cuEventRecord", EventRecord);
    resolveDriverEntry("cuEventQuery", EventQuery);
    resolveDriverEntry("cuEventElapsedTime", EventElapsedTime);
  }
};

/// PyTorch and Triton name the legacy default stream 0.
CUstream clientStream(CUstream S) { return S ? S : CU_STREAM_LEGACY; }

KernelBinding bindingOf(const Kernel &K, bool Own) {
  auto Sizes = K.paramSizes();
  return {K.name(), K.hasVariant(Mode::Slices), K.hasVariant(Mode::Ptb),
          std::vector<size_t>(Sizes.begin(), Sizes.end()), Own,
          K.resources().RegistersPerThread};
}

/// A ticket older than the lease (1 s by default) stops holding other
/// processes back (share.h), and a bracket as old stops holding this
/// process's best-effort work back (LaunchRouter), so an open automatic
/// bracket is renewed well before that while its LC work makes progress:
/// while LC launches keep coming. One whose streams stay busy with no new
/// launch (LC work stuck behind paused BE work on a shared stream) expires.
constexpr auto Renew = std::chrono::milliseconds(250);

/// How often a best-effort thread held for other processes' latency-critical
/// work looks at the registry again.
constexpr auto PeerPollPeriod = std::chrono::microseconds(50);

} // namespace

struct Router::Impl {
  LaunchRouter &LR;
  RouterDriver Driver;

  std::mutex Mutex;
  /// Per Triton CUfunction, the kernel whose variants its launches run.
  std::unordered_map<CUfunction, std::pair<Kernel, bool>> Kernels;
  /// Kernels forgotten (Router::forget), never destroyed: the last one of
  /// an image would unload Baton's module of its variants, on whichever
  /// thread let go of it, and an unload while routed work waits paused has
  /// not been shown safe (a load then never returns).
  std::vector<Kernel> Forgotten;

  std::mutex HoldMutex;
  std::map<uint64_t, sched::SchedulerService::BestEffortHold> Holds;
  uint64_t NextHold = 1;

  std::mutex BracketMutex;
  std::condition_variable BracketChanged;
  uint64_t AutoWork = 0; ///< the open automatic bracket, 0 if none
  std::set<CUstream> Touched;
  Steady::time_point LastTouch;
  std::chrono::microseconds Grace{200};
  std::thread Watcher;
  uint64_t Brackets = 0, AutoBrackets = 0, Announced = 0;
  /// Membership of the GPU's registry as latency-critical, joined at
  /// joinRegistry() or when the first bracket opens, whichever is first
  /// (unless BATON_SHARE=0); null if not joined.
  baton_share Share = nullptr;
  bool Joined = false;
  uint64_t AutoTicket = 0;
  Steady::time_point AutoRenewedAt; ///< of AutoWork and AutoTicket
  /// An explicit bracket open: when it began (it is never renewed), and its
  /// registry ticket (0 if it was not announced).
  struct ExplicitBracket {
    Steady::time_point Since;
    uint64_t Ticket;
  };
  std::map<uint64_t, ExplicitBracket> Explicit; ///< by bracket id
  /// Brackets open (explicit and automatic): read without a lock by
  /// best-effort threads before each launch.
  std::atomic<int> Open{0};
  std::condition_variable Closed; ///< notified with BracketMutex held
  uint64_t GateWaits = 0, GateWaitUs = 0;
  /// BATON_BE_GATE_PEERS=1: the gate also holds for other processes'
  /// brackets (Router.h).
  const bool GatePeers = envFlag("BATON_BE_GATE_PEERS");

  /// Kernel timing: per kernel, completed samples (microseconds) and the
  /// event pairs still in flight.
  struct Timing {
    std::vector<float> Done;
    std::vector<std::pair<CUevent, CUevent>> Pending;
  };
  std::mutex TimingMutex;
  std::unordered_map<CUfunction, Timing> Timings;
  std::map<uint64_t, std::pair<CUfunction, CUevent>> Begun; ///< token -> begin
  uint64_t NextToken = 1;

  /// Events are made in the calling thread's context: the primary one,
  /// which PyTorch made current on its threads; a thread without any gets
  /// the runtime's (the same primary context).
  void ensureContext() {
    CUcontext Current = nullptr;
    if (Driver.CtxGetCurrent(&Current) != CUDA_SUCCESS || !Current)
      Driver.CtxSetCurrent(LR.runtime().context());
  }

  /// A bracket opened (BracketMutex held).
  void opened() {
    if (Open.fetch_add(1, std::memory_order_release) == 0)
      holdBypassing();
  }

  /// A bracket closed (BracketMutex held).
  void closed() {
    if (Open.fetch_sub(1, std::memory_order_release) == 1)
      releaseBypassing();
    Closed.notify_all();
  }

  /// Kernels that bypass Baton wait on the device from the first open
  /// bracket to the last close (BypassGate.h).
  static void holdBypassing() {
#ifdef BATON_PYTHON_BYPASS_GATE
    BypassGate::hold();
#endif
  }
  static void releaseBypassing() {
#ifdef BATON_PYTHON_BYPASS_GATE
    BypassGate::release();
#endif
  }

  /// When the lease of the last open bracket ends (BracketMutex held); the
  /// epoch if none is open. A bracket past its lease no longer holds the
  /// scheduler's BE work back (SchedulerService::leaseBrackets), nor does
  /// the host gate hold BE threads for it.
  Steady::time_point leaseEnd() const {
    auto Lease = LR.bracketLease();
    Steady::time_point End{};
    for (const auto &[Id, Bracket] : Explicit)
      End = std::max(End, Bracket.Since + Lease);
    if (AutoWork)
      End = std::max(End, AutoRenewedAt + Lease);
    return End;
  }

  explicit Impl(LaunchRouter &LR) : LR(LR) {}

  baton_share share() {
    if (Joined)
      return Share;
    Joined = true;
    if (const char *V = std::getenv("BATON_SHARE"); V && !std::strcmp(V, "0"))
      return nullptr;
    if (baton_share_join(nullptr, LR.runtime().options().Device,
                         BATON_SHARE_LATENCY_CRITICAL, "python", &Share) !=
        BATON_SHARE_OK) {
      std::fprintf(stderr,
                   "baton: latency-critical work is not announced to other "
                   "processes: %s\n", baton_share_last_error());
      Share = nullptr;
    }
    return Share;
  }

  uint64_t announce() {
    uint64_t Ticket = 0;
    if (baton_share S = share();
        S && baton_share_announce(S, &Ticket) == BATON_SHARE_OK) {
      ++Announced;
      return Ticket;
    }
    return 0;
  }

  void endTicket(uint64_t Ticket) {
    if (Ticket && Share)
      baton_share_end(Share, Ticket); // an expired ticket is no error here
  }

  bool streamsIdle() {
    for (CUstream S : Touched)
      // A query of a capturing stream would break its capture; the work
      // queued there since is captured, not run.
      if (!streamCapturing(S) && Driver.StreamQuery(S) == CUDA_ERROR_NOT_READY)
        return false;
    // Errors (a destroyed stream) count as idle: nothing of ours is left
    // to wait for there.
    return true;
  }

  /// Closes the automatic bracket once LC work has drained: every stream
  /// touched idle, and none touched for the grace period (kernels launched
  /// back to back from Python leave short gaps that must not reopen BE).
  void watch() {
    Driver.CtxSetCurrent(LR.runtime().context());
    relaxCaptureModeForThisThread();
    std::unique_lock Lock(BracketMutex);
    for (;;) {
      if (!AutoWork) {
        BracketChanged.wait(Lock);
        continue;
      }
      auto Poll = std::clamp(Grace / 4, std::chrono::microseconds(10),
                             std::chrono::microseconds(200));
      BracketChanged.wait_for(Lock, Poll);
      if (!AutoWork)
        continue;
      auto Now = Steady::now();
      if (Now - AutoRenewedAt > Renew && LastTouch > AutoRenewedAt) {
        AutoRenewedAt = Now;
        LR.service().renewExternal(AutoWork);
        if (uint64_t Old = AutoTicket) {
          AutoTicket = announce();
          endTicket(Old);
        }
      }
      if (Now - LastTouch < Grace || !streamsIdle())
        continue;
      uint64_t Work = AutoWork;
      AutoWork = 0;
      Touched.clear();
      endTicket(AutoTicket);
      AutoTicket = 0;
      closed();
      try {
        LR.service().endExternal(Work);
      } catch (const std::exception &E) {
        std::fprintf(stderr, "baton: closing a latency-critical bracket: %s\n",
                     E.what());
      }
    }
  }
};

namespace {
std::once_flag Created;
Router *Instance = nullptr;

/// Per CUfunction handle forgotten, its epoch (Router.h; absent: 0), kept
/// apart from the router so that a handle forgotten before it starts is
/// fenced too.
struct FunctionEpochs {
  std::mutex Mutex;
  std::unordered_map<CUfunction, uint64_t> Of;

  uint64_t of(CUfunction F) {
    std::lock_guard Lock(Mutex);
    auto It = Of.find(F);
    return It == Of.end() ? 0 : It->second;
  }
  void advance(CUfunction F) {
    std::lock_guard Lock(Mutex);
    ++Of[F];
  }
  /// Throws unless \p F is still at \p Epoch.
  void check(CUfunction F, uint64_t Epoch) {
    if (of(F) != Epoch)
      throw Error(ErrorKind::InvalidState,
                  "the kernel was unloaded and its handle reused while its "
                  "variants were prepared");
  }
};

FunctionEpochs &epochs() {
  static FunctionEpochs *E = new FunctionEpochs; // used until exit
  return *E;
}
} // namespace

Router::Router() : P(nullptr) {
  LaunchRouter *LR = LaunchRouter::get();
  if (!LR)
    throw std::runtime_error(
        "baton: the runtime cannot start (the reason is on stderr)");
  P = new Impl(*LR);
}

Router &Router::get() {
  std::call_once(Created, [] {
    try {
      Instance = new Router();
    } catch (const std::exception &) {
    }
  });
  if (!Instance)
    throw std::runtime_error(
        "baton: the runtime cannot start (no CUDA driver or device; the "
        "reason is on stderr)");
  return *Instance;
}

bool Router::running() { return Instance != nullptr; }

uint64_t Router::epoch(CUfunction Function) {
  return epochs().of(Function);
}

std::vector<CUfunction> Router::forget(CUfunction Function) {
  Router *R = Instance;
  if (!R) {
    epochs().advance(Function);
    return {};
  }
  Impl *P = R->P;
  std::vector<CUfunction> Variants;
  {
    std::lock_guard Lock(P->Mutex);
    epochs().advance(Function);
    if (auto It = P->Kernels.find(Function); It != P->Kernels.end()) {
      const Kernel &K = It->second.first;
      for (Mode M : {Mode::Slices, Mode::Ptb})
        if (K.hasVariant(M)) // function() throws for a missing variant
          Variants.push_back(K.function(M));
      P->Forgotten.push_back(std::move(It->second.first));
      P->Kernels.erase(It);
    }
  }
  std::vector<CUevent> Events;
  {
    std::lock_guard Lock(P->TimingMutex);
    if (auto It = P->Timings.find(Function); It != P->Timings.end()) {
      for (auto [Begin, End] : It->second.Pending)
        Events.insert(Events.end(), {Begin, End});
      P->Timings.erase(It);
    }
    std::erase_if(P->Begun, [&](const auto &Entry) {
      if (Entry.second.first != Function)
        return false;
      Events.push_back(Entry.second.second);
      return true;
    });
  }
  if (!Events.empty()) {
    P->ensureContext();
    for (CUevent E : Events)
      P->Driver.EventDestroy(E);
  }
  return Variants;
}

KernelBinding Router::bind(CUfunction Function, uint64_t Epoch) {
  {
    std::lock_guard Lock(P->Mutex);
    epochs().check(Function, Epoch);
    if (auto It = P->Kernels.find(Function); It != P->Kernels.end())
      return bindingOf(It->second.first, It->second.second);
  }
  // Called from the package's preparation threads: loading a module must
  // not break another thread's graph capture, nor start while a routed
  // launch waits paused (LaunchRouter::holdForModuleLoad). The hold is
  // taken before the lock: submits need the lock to find their kernel.
  RelaxedCaptureMode Relaxed;
  auto Hold = P->LR.holdForModuleLoad();
  std::lock_guard Lock(P->Mutex);
  epochs().check(Function, Epoch);
  if (auto It = P->Kernels.find(Function); It != P->Kernels.end())
    return bindingOf(It->second.first, It->second.second);
  Kernel K = P->LR.runtime().kernelOf(Function);
  KernelBinding B = bindingOf(K, false);
  P->Kernels.insert_or_assign(Function, std::pair{std::move(K), false});
  return B;
}

KernelBinding Router::bindImage(CUfunction Function,
                                std::span<const std::byte> Image,
                                const std::string &Name, uint64_t Epoch) {
  {
    std::lock_guard Lock(P->Mutex); // not worth loading the image for
    epochs().check(Function, Epoch);
  }
  RelaxedCaptureMode Relaxed; // as bind()
  Runtime &R = P->LR.runtime();
  std::optional<Kernel> Original, Loaded;
  {
    auto Hold = P->LR.holdForModuleLoad(); // as bind()
    Original = R.kernelOf(Function);
    Loaded = R.loadImage(Image).kernel(Name);
  }
  Kernel &K = *Loaded;
  auto Want = Original->paramSizes(), Have = K.paramSizes();
  if (!std::equal(Want.begin(), Want.end(), Have.begin(), Have.end()))
    throw Error(ErrorKind::InvalidArgument,
                "kernel '" + Name + "' of the assembled image does not take "
                "the parameters of the loaded kernel '" + Original->name() +
                "'");
  KernelBinding B = bindingOf(K, true);
  std::lock_guard Lock(P->Mutex);
  epochs().check(Function, Epoch);
  P->Kernels.insert_or_assign(Function, std::pair{std::move(K), true});
  return B;
}

uint64_t Router::holdForLoad(std::chrono::microseconds Patience) {
  auto Hold = P->LR.service().holdBestEffort(Patience);
  std::lock_guard Lock(P->HoldMutex);
  uint64_t Id = P->NextHold++;
  P->Holds.emplace(Id, std::move(Hold));
  return Id;
}

void Router::releaseHold(uint64_t Id) {
  std::optional<sched::SchedulerService::BestEffortHold> Released;
  std::lock_guard Lock(P->HoldMutex);
  if (auto It = P->Holds.find(Id); It != P->Holds.end()) {
    Released.emplace(std::move(It->second));
    P->Holds.erase(It);
  }
}

bool Router::submit(CUfunction Function, Dim3 Grid, Dim3 Block,
                    uint32_t Shared, CUstream Stream,
                    std::span<const std::byte> Params) {
  std::optional<Kernel> K;
  {
    std::lock_guard Lock(P->Mutex);
    auto It = P->Kernels.find(Function);
    if (It == P->Kernels.end())
      throw Error(ErrorKind::InvalidState,
                  "submit() of a kernel that was not bound");
    K = It->second.first;
  }
  std::span<const size_t> Sizes = K->paramSizes();
  std::vector<void *> Args;
  Args.reserve(Sizes.size());
  size_t Offset = 0;
  for (size_t Size : Sizes) {
    if (Offset + Size > Params.size())
      break;
    Args.push_back(const_cast<std::byte *>(Params.data() + Offset));
    Offset += Size;
  }
  if (Args.size() != Sizes.size() || Offset != Params.size())
    throw Error(ErrorKind::InvalidArgument,
                "kernel '" + K->name() + "' takes " +
                    std::to_string(Sizes.size()) +
                    " parameters; the packed arguments do not match their "
                    "sizes (" + std::to_string(Params.size()) + " bytes)");
  RoutedLaunch L;
  L.Grid = Grid;
  L.Block = Block;
  L.SharedMemBytes = Shared;
  L.Stream = clientStream(Stream);
  L.Args = Args.data();
  switch (P->LR.submit(*K, L, PriorityClass::BestEffort)) {
  case LaunchRouter::Submitted::Scheduled:
    return true;
  case LaunchRouter::Submitted::Capturing:
    return false;
  case LaunchRouter::Submitted::Failed:
    break;
  }
  throw std::runtime_error("baton: launch of '" + K->name() +
                           "' not submitted (the reason is on stderr)");
}

bool Router::joinRegistry() {
  std::lock_guard Lock(P->BracketMutex);
  return P->share() != nullptr;
}

uint64_t Router::lcBegin(uint32_t Sms) {
  uint64_t Id = P->LR.service().beginExternal(Sms);
  std::lock_guard Lock(P->BracketMutex);
  ++P->Brackets;
  P->Explicit.emplace(Id, Impl::ExplicitBracket{Steady::now(), P->announce()});
  P->opened();
  return Id;
}

void Router::lcEnd(uint64_t Id) {
  if (!Id)
    return;
  P->LR.service().endExternal(Id);
  std::lock_guard Lock(P->BracketMutex);
  if (auto It = P->Explicit.find(Id); It != P->Explicit.end()) {
    P->endTicket(It->second.Ticket);
    P->Explicit.erase(It);
    P->closed();
  }
}

bool Router::lcTouch(CUstream Stream, uint32_t Sms,
                     std::chrono::microseconds Grace) {
  if (streamCapturing(clientStream(Stream)))
    return false;
  std::lock_guard Lock(P->BracketMutex);
  P->LastTouch = Steady::now();
  P->Grace = std::max(Grace, std::chrono::microseconds(20));
  P->Touched.insert(clientStream(Stream));
  if (P->AutoWork)
    return true;
  // Announced before the work is queued: peers yield from now on.
  P->AutoTicket = P->announce();
  P->AutoRenewedAt = P->LastTouch;
  P->AutoWork = P->LR.service().beginExternal(Sms);
  ++P->AutoBrackets;
  P->opened();
  if (!P->Watcher.joinable())
    P->Watcher = std::thread([this] { P->watch(); });
  P->BracketChanged.notify_one();
  return true;
}

bool Router::lcOpen() const {
  return P->Open.load(std::memory_order_acquire) > 0 ||
         (P->GatePeers && P->LR.peersLatencyCritical());
}

std::chrono::microseconds
Router::waitWhileLc(std::chrono::microseconds Max) {
  auto Start = Steady::now();
  auto Deadline = Start + Max;
  while (Steady::now() < Deadline) {
    if (P->Open.load(std::memory_order_acquire) > 0) {
      std::unique_lock Lock(P->BracketMutex);
      if (auto Until = std::min(P->leaseEnd(), Deadline);
          Steady::now() < Until) {
        // Woken by a close, or at the lease's end; looked at again.
        P->Closed.wait_until(Lock, Until);
        continue;
      }
    }
    if (!P->GatePeers || !P->LR.peersLatencyCritical())
      break;
    // Other processes' brackets end there: polled, as the scheduler does.
    std::this_thread::sleep_for(PeerPollPeriod);
  }
  auto Waited =
      std::chrono::duration_cast<std::chrono::microseconds>(Steady::now() - Start);
  std::lock_guard Lock(P->BracketMutex);
  ++P->GateWaits;
  P->GateWaitUs += uint64_t(Waited.count());
  return Waited;
}

uint64_t Router::timeBegin(CUfunction Function, CUstream Stream) {
  P->ensureContext();
  if (streamCapturing(clientStream(Stream)))
    return 0; // the event would be captured, never recorded now
  CUevent Begin = nullptr;
  if (P->Driver.EventCreate(&Begin, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
    return 0;
  if (P->Driver.EventRecord(Begin, clientStream(Stream)) != CUDA_SUCCESS) {
    P->Driver.EventDestroy(Begin);
    return 0;
  }
  std::lock_guard Lock(P->TimingMutex);
  uint64_t Token = P->NextToken++;
  P->Begun.emplace(Token, std::pair{Function, Begin});
  return Token;
}

void Router::timeEnd(uint64_t Token, CUstream Stream) {
  std::pair<CUfunction, CUevent> Begun;
  {
    std::lock_guard Lock(P->TimingMutex);
    auto It = P->Begun.find(Token);
    if (It == P->Begun.end())
      return;
    Begun = It->second;
    P->Begun.erase(It);
  }
  CUevent End = nullptr;
  if (P->Driver.EventCreate(&End, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      P->Driver.EventRecord(End, clientStream(Stream)) != CUDA_SUCCESS) {
    if (End)
      P->Driver.EventDestroy(End);
    P->Driver.EventDestroy(Begun.second);
    return;
  }
  std::lock_guard Lock(P->TimingMutex);
  P->Timings[Begun.first].Pending.emplace_back(Begun.second, End);
}

double Router::kernelTimeUs(CUfunction Function, size_t Samples) {
  std::lock_guard Lock(P->TimingMutex);
  auto It = P->Timings.find(Function);
  if (It == P->Timings.end())
    return -1;
  Impl::Timing &T = It->second;
  // Legal while another thread captures a graph in global mode.
  std::optional<RelaxedCaptureMode> Relaxed;
  if (!T.Pending.empty())
    Relaxed.emplace();
  for (auto Pair = T.Pending.begin(); Pair != T.Pending.end();) {
    CUresult R = P->Driver.EventQuery(Pair->second);
    if (R == CUDA_ERROR_NOT_READY) {
      ++Pair;
      continue;
    }
    float Ms = 0;
    if (R == CUDA_SUCCESS &&
        P->Driver.EventElapsedTime(&Ms, Pair->first, Pair->second) ==
            CUDA_SUCCESS)
      T.Done.push_back(Ms * 1000.0f);
    P->Driver.EventDestroy(Pair->first);
    P->Driver.EventDestroy(Pair->second);
    Pair = T.Pending.erase(Pair);
  }
  if (T.Done.size() < Samples || T.Done.empty())
    return -1;
  std::vector<float> Sorted = T.Done;
  std::nth_element(Sorted.begin(), Sorted.begin() + Sorted.size() / 2,
                   Sorted.end());
  return Sorted[Sorted.size() / 2];
}

void Router::synchronize() {
  if (P->LR.synchronize() != 0)
    throw std::runtime_error(
        "baton: a scheduled launch failed (the error is on stderr)");
}

RouterStats Router::stats() {
  ServiceStats S = P->LR.service().stats();
  std::lock_guard Lock(P->BracketMutex);
  return {S.LatencyCritical, S.BestEffort,  S.Resumes,
          S.Pauses,          S.Originals,   P->Brackets,
          P->AutoBrackets,   P->Announced,  P->GateWaits,
          P->GateWaitUs,     S.Drains,      S.ExpiredBrackets};
}

bool Router::remoteLatencyCritical(int Device) {
  baton_share_process Procs[BATON_SHARE_MAX_PROCESSES];
  size_t Count = 0;
  if (baton_share_list(nullptr, Device, Procs, BATON_SHARE_MAX_PROCESSES,
                       &Count) != BATON_SHARE_OK)
    return false;
  pid_t Self = getpid();
  for (size_t I = 0; I < std::min<size_t>(Count, BATON_SHARE_MAX_PROCESSES); ++I)
    if (Procs[I].alive && Procs[I].cls == BATON_SHARE_LATENCY_CRITICAL &&
        Procs[I].pid != Self)
      return true;
  return false;
}
