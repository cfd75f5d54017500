//===- Router.cpp - Launches the Python package hands to the scheduler ----===//
//
// See Router.h. Locks: Mutex guards the kernel and queue maps; BracketMutex
// the automatic bracket. Neither is held while the other is taken, and
// neither is held across a call that waits for the device.
//
//===----------------------------------------------------------------------===//
#include "Router.h"

#include <algorithm>
#include <cstdio>
#include <condition_variable>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
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

/// PyTorch and Triton name the legacy default stream 0; in a Work a null
/// stream means "any stream", so it is named explicitly.
CUstream clientStream(CUstream S) { return S ? S : CU_STREAM_LEGACY; }

SchedulerOptions serviceOptions() {
  SchedulerOptions O;
  O.ForgetDoneWork = true; // a training job launches without end
  return O;
}

KernelBinding bindingOf(const Kernel &K, bool Own) {
  auto Sizes = K.paramSizes();
  return {K.name(), K.hasVariant(Mode::Slices), K.hasVariant(Mode::Ptb),
          std::vector<size_t>(Sizes.begin(), Sizes.end()), Own};
}

} // namespace

struct Router::Impl {
  Runtime R;
  SchedulerService Service;
  WatcherDriver Driver;

  std::mutex Mutex;
  /// Per Triton CUfunction, the kernel whose variants its launches run.
  std::unordered_map<CUfunction, std::pair<Kernel, bool>> Kernels;
  std::map<CUstream, uint32_t> Queues;

  std::mutex BracketMutex;
  std::condition_variable BracketChanged;
  uint64_t AutoWork = 0; ///< the open automatic bracket, 0 if none
  std::set<CUstream> Touched;
  Steady::time_point LastTouch;
  std::chrono::microseconds Grace{200};
  std::thread Watcher;
  uint64_t Brackets = 0, AutoBrackets = 0;

  Impl() : Service(R, serviceOptions()) {}

  uint32_t queueOf(CUstream S) {
    auto [It, New] = Queues.try_emplace(S, uint32_t(Queues.size() + 1));
    return It->second;
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
    Driver.CtxSetCurrent(R.context());
    std::unique_lock Lock(BracketMutex);
    for (;;) {
      if (!AutoWork) {
        BracketChanged.wait(Lock);
        continue;
      }
      auto Poll = std::clamp(Grace / 4, std::chrono::microseconds(10),
                             std::chrono::microseconds(200));
      BracketChanged.wait_for(Lock, Poll);
      if (!AutoWork || Steady::now() - LastTouch < Grace || !streamsIdle())
        continue;
      uint64_t Work = AutoWork;
      AutoWork = 0;
      Touched.clear();
      try {
        Service.endExternal(Work);
      } catch (const std::exception &E) {
        std::fprintf(stderr, "baton: closing a latency-critical bracket: %s\n",
                     E.what());
      }
    }
  }
};

Router::Router() : P(new Impl) {}
Router::~Router() { delete P; }

namespace {
std::once_flag Created;
Router *Instance = nullptr;
std::string Failure;
} // namespace

Router &Router::get() {
  std::call_once(Created, [] {
    try {
      Instance = new Router();
    } catch (const std::exception &E) {
      Failure = E.what();
    }
  });
  if (!Instance)
    throw std::runtime_error("baton: the runtime cannot start: " + Failure);
  return *Instance;
}

bool Router::running() { return Instance != nullptr; }

KernelBinding Router::bind(CUfunction Function) {
  std::lock_guard Lock(P->Mutex);
  if (auto It = P->Kernels.find(Function); It != P->Kernels.end())
    return bindingOf(It->second.first, It->second.second);
  Kernel K = P->R.kernelOf(Function);
  KernelBinding B = bindingOf(K, false);
  P->Kernels.insert_or_assign(Function, std::pair{std::move(K), false});
  return B;
}

KernelBinding Router::bindImage(CUfunction Function,
                                std::span<const std::byte> Image,
                                const std::string &Name) {
  Kernel Original = P->R.kernelOf(Function);
  Module M = P->R.loadImage(Image);
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
  CUstream S = clientStream(Stream);
  std::optional<Kernel> K;
  uint32_t Queue = 0;
  {
    std::lock_guard Lock(P->Mutex);
    auto It = P->Kernels.find(Function);
    if (It == P->Kernels.end())
      throw Error(ErrorKind::InvalidState,
                  "submit() of a kernel that was not bound");
    K = It->second.first;
    Queue = P->queueOf(S);
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
  LaunchConfig Config;
  Config.Grid = Grid;
  Config.Block = Block;
  Config.SharedMemBytes = Shared;
  Config.Stream = S;
  Work W = makeWork(RuntimeWork::capture(*K, Config, Args.data()),
                    PriorityClass::BestEffort, Queue);
  W.IssueAtOnce = true;
  P->Service.submit(std::move(W));
}

uint64_t Router::lcBegin(uint32_t Sms) {
  uint64_t Id = P->Service.beginExternal(Sms);
  std::lock_guard Lock(P->BracketMutex);
  ++P->Brackets;
  return Id;
}

void Router::lcEnd(uint64_t Id) {
  if (Id)
    P->Service.endExternal(Id);
}

void Router::lcTouch(CUstream Stream, uint32_t Sms,
                     std::chrono::microseconds Grace) {
  std::lock_guard Lock(P->BracketMutex);
  P->LastTouch = Steady::now();
  P->Grace = std::max(Grace, std::chrono::microseconds(20));
  P->Touched.insert(clientStream(Stream));
  if (P->AutoWork)
    return;
  P->AutoWork = P->Service.beginExternal(Sms);
  ++P->AutoBrackets;
  if (!P->Watcher.joinable())
    P->Watcher = std::thread([this] { P->watch(); });
  P->BracketChanged.notify_one();
}

bool Router::lcActive() {
  std::lock_guard Lock(P->BracketMutex);
  return P->AutoWork != 0;
}

void Router::synchronize() { P->Service.waitIdle(); }

RouterStats Router::stats() {
  ServiceStats S = P->Service.stats();
  std::lock_guard Lock(P->BracketMutex);
  return {S.LatencyCritical, S.BestEffort, S.Resumes, S.Pauses, P->Brackets,
          P->AutoBrackets};
}
