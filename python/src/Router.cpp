//===- Router.cpp - Launches the Python package hands to the scheduler ----===//
//
// See Router.h. Locks: Mutex guards the kernel map; BracketMutex the
// brackets and the registry membership. Neither is held while the other is
// taken, nor across a call that waits for the device.
//
//===----------------------------------------------------------------------===//
#include "Router.h"

#include "LaunchRouter.h"
#include "baton/share.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <unistd.h>
#include <unordered_map>

using namespace baton;
using namespace baton::python;
using namespace baton::sched;
using Steady = std::chrono::steady_clock;

namespace {

/// The two driver calls the bracket watcher makes itself. libcuda.so.1 is
/// loaded already (the runtime opened it), so this only looks them up.
struct WatcherDriver {
  CUresult (*StreamQuery)(CUstream) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;

  WatcherDriver() {
    void *Lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!Lib)
      Lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!Lib)
      throw std::runtime_error("baton: libcuda.so.1 cannot be opened");
    StreamQuery = reinterpret_cast<decltype(StreamQuery)>(
        dlsym(Lib, "cuStreamQuery"));
    CtxSetCurrent = reinterpret_cast<decltype(CtxSetCurrent)>(
        dlsym(Lib, "cuCtxSetCurrent"));
    if (!StreamQuery || !CtxSetCurrent)
      throw std::runtime_error("baton: libcuda.so.1 lacks cuStreamQuery");
  }
};

/// PyTorch and Triton name the legacy default stream 0.
CUstream clientStream(CUstream S) { return S ? S : CU_STREAM_LEGACY; }

KernelBinding bindingOf(const Kernel &K, bool Own) {
  auto Sizes = K.paramSizes();
  return {K.name(), K.hasVariant(Mode::Slices), K.hasVariant(Mode::Ptb),
          std::vector<size_t>(Sizes.begin(), Sizes.end()), Own};
}

/// A ticket older than the lease (1 s by default) stops holding other
/// processes back (share.h), so an open bracket is announced afresh well
/// before that.
constexpr auto Renew = std::chrono::milliseconds(250);

} // namespace

struct Router::Impl {
  LaunchRouter &LR;
  WatcherDriver Driver;

  std::mutex Mutex;
  /// Per Triton CUfunction, the kernel whose variants its launches run.
  std::unordered_map<CUfunction, std::pair<Kernel, bool>> Kernels;

  std::mutex BracketMutex;
  std::condition_variable BracketChanged;
  uint64_t AutoWork = 0; ///< the open automatic bracket, 0 if none
  std::set<CUstream> Touched;
  Steady::time_point LastTouch;
  std::chrono::microseconds Grace{200};
  std::thread Watcher;
  uint64_t Brackets = 0, AutoBrackets = 0, Announced = 0;
  /// Membership of the GPU's registry as latency-critical, joined when the
  /// first bracket opens (unless BATON_SHARE=0); null if not joined.
  baton_share Share = nullptr;
  bool Joined = false;
  uint64_t AutoTicket = 0;
  Steady::time_point AutoTicketAt;
  std::map<uint64_t, uint64_t> ExplicitTickets; ///< bracket id -> ticket

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
      if (Driver.StreamQuery(S) == CUDA_ERROR_NOT_READY)
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
      if (AutoTicket && Now - AutoTicketAt > Renew) {
        uint64_t Old = AutoTicket;
        AutoTicket = announce();
        AutoTicketAt = Now;
        endTicket(Old);
      }
      if (Now - LastTouch < Grace || !streamsIdle())
        continue;
      uint64_t Work = AutoWork;
      AutoWork = 0;
      Touched.clear();
      endTicket(AutoTicket);
      AutoTicket = 0;
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

KernelBinding Router::bind(CUfunction Function) {
  std::lock_guard Lock(P->Mutex);
  if (auto It = P->Kernels.find(Function); It != P->Kernels.end())
    return bindingOf(It->second.first, It->second.second);
  Kernel K = P->LR.runtime().kernelOf(Function);
  KernelBinding B = bindingOf(K, false);
  P->Kernels.insert_or_assign(Function, std::pair{std::move(K), false});
  return B;
}

KernelBinding Router::bindImage(CUfunction Function,
                                std::span<const std::byte> Image,
                                const std::string &Name) {
  Runtime &R = P->LR.runtime();
  Kernel Original = R.kernelOf(Function);
  Module M = R.loadImage(Image);
  Kernel K = M.kernel(Name);
  auto Want = Original.paramSizes(), Have = K.paramSizes();
  if (!std::equal(Want.begin(), Want.end(), Have.begin(), Have.end()))
    throw Error(ErrorKind::InvalidArgument,
                "kernel '" + Name + "' of the assembled image does not take "
                "the parameters of the loaded kernel '" + Original.name() +
                "'");
  KernelBinding B = bindingOf(K, true);
  std::lock_guard Lock(P->Mutex);
  P->Kernels.insert_or_assign(Function, std::pair{std::move(K), true});
  return B;
}

void Router::submit(CUfunction Function, Dim3 Grid, Dim3 Block,
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
  if (!P->LR.submit(*K, L, PriorityClass::BestEffort))
    throw std::runtime_error("baton: launch of '" + K->name() +
                             "' not submitted (the reason is on stderr)");
}

uint64_t Router::lcBegin(uint32_t Sms) {
  uint64_t Id = P->LR.service().beginExternal(Sms);
  std::lock_guard Lock(P->BracketMutex);
  ++P->Brackets;
  if (uint64_t Ticket = P->announce())
    P->ExplicitTickets[Id] = Ticket;
  return Id;
}

void Router::lcEnd(uint64_t Id) {
  if (!Id)
    return;
  {
    std::lock_guard Lock(P->BracketMutex);
    if (auto It = P->ExplicitTickets.find(Id); It != P->ExplicitTickets.end()) {
      P->endTicket(It->second);
      P->ExplicitTickets.erase(It);
    }
  }
  P->LR.service().endExternal(Id);
}

void Router::lcTouch(CUstream Stream, uint32_t Sms,
                     std::chrono::microseconds Grace) {
  std::lock_guard Lock(P->BracketMutex);
  P->LastTouch = Steady::now();
  P->Grace = std::max(Grace, std::chrono::microseconds(20));
  P->Touched.insert(clientStream(Stream));
  if (P->AutoWork)
    return;
  // Announced before the work is queued: peers yield from now on.
  P->AutoTicket = P->announce();
  P->AutoTicketAt = P->LastTouch;
  P->AutoWork = P->LR.service().beginExternal(Sms);
  ++P->AutoBrackets;
  if (!P->Watcher.joinable())
    P->Watcher = std::thread([this] { P->watch(); });
  P->BracketChanged.notify_one();
}

bool Router::lcActive() {
  std::lock_guard Lock(P->BracketMutex);
  return P->AutoWork != 0;
}

void Router::synchronize() {
  if (P->LR.synchronize() != 0)
    throw std::runtime_error(
        "baton: a scheduled launch failed (the error is on stderr)");
}

RouterStats Router::stats() {
  ServiceStats S = P->LR.service().stats();
  std::lock_guard Lock(P->BracketMutex);
  return {S.LatencyCritical, S.BestEffort, S.Resumes,    S.Pauses,
          P->Brackets,       P->AutoBrackets, P->Announced};
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
