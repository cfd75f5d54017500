//===- LaunchShim.cpp - Route kernel launches through the scheduler -------===//
//
// The process-wide router behind baton/cuda_launch.h. With scheduling off a
// launch costs one relaxed atomic load before cudaLaunchKernel. With it on,
// the first launch of a kernel finds its CUfunction (cudaGetFuncBySymbol: the
// CUDA runtime loads the program's fatbin, variants included, into the
// primary context that baton::Runtime shares) and every launch becomes a
// Work for the SchedulerService, on the caller's stream.
//
// The router is created on first use and never destroyed: at exit it must
// still wait for scheduled work before the CUDA runtime unregisters the
// fatbin, which an atexit handler registered after the runtime's does.
//
//===----------------------------------------------------------------------===//

#include "baton/cuda_launch.h"

#include "baton/SchedulerService.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

// cudart exports the per-thread-default-stream entry point in every build,
// but its header declares it only for code compiled in that mode.
extern "C" cudaError_t cudaLaunchKernel_ptsz(const void *Func, dim3 Grid,
                                             dim3 Block, void **Args,
                                             size_t SharedMem,
                                             cudaStream_t Stream);

using namespace baton;
using namespace baton::sched;

namespace {

enum class Routing { Undecided, Off, On };

std::atomic<Routing> State{Routing::Undecided};
std::atomic<baton_class> DefaultClass{BATON_CLASS_BEST_EFFORT};
std::once_flag EnvRead;

bool verbose() {
  static const bool On = [] {
    const char *V = std::getenv("BATON_VERBOSE");
    return V && *V && std::strcmp(V, "0") != 0;
  }();
  return On;
}

/// BATON_SCHEDULE, or null where it is unset or asks for no scheduling.
const char *scheduleRequested() {
  const char *V = std::getenv("BATON_SCHEDULE");
  if (!V || !*V || std::strcmp(V, "off") == 0 || std::strcmp(V, "0") == 0)
    return nullptr;
  return V;
}

/// Reads BATON_SCHEDULE once, unless baton_enable_scheduling() came first.
void readEnvironment() {
  std::call_once(EnvRead, [] {
    if (State.load() != Routing::Undecided)
      return;
    const char *V = scheduleRequested();
    if (!V) {
      State = Routing::Off;
      return;
    }
    std::string Value = V;
    if (Value == "latency-critical")
      DefaultClass = BATON_CLASS_LATENCY_CRITICAL;
    else if (Value != "best-effort" && Value != "on" && Value != "1")
      std::fprintf(stderr,
                   "baton: BATON_SCHEDULE='%s' is not one of best-effort, "
                   "latency-critical, off; scheduling as best-effort\n",
                   Value.c_str());
    State = Routing::On;
  });
}

class Router {
public:
  /// The process's router, created on first use; null (reported once) if
  /// the runtime cannot start, and then launches are not scheduled.
  static Router *get();

  cudaError_t launch(const void *Func, dim3 Grid, dim3 Block, void **Args,
                     size_t SharedMem, cudaStream_t Stream);
  void setClass(cudaStream_t Stream, baton_class Class);
  int synchronize();
  baton_routing_stats stats();
  SchedulerService &service() { return Service; }

private:
  Router() : Service(R, serviceOptions()) {}
  static SchedulerOptions serviceOptions() {
    SchedulerOptions O;
    O.ForgetDoneWork = true; // a training job launches without end
    return O;
  }
  std::optional<Kernel> kernelFor(const void *Func);
  uint32_t queueOf(cudaStream_t Stream);

  Runtime R;
  SchedulerService Service;
  std::mutex Mutex; ///< guards the maps
  std::unordered_map<const void *, std::optional<Kernel>> Kernels;
  std::map<cudaStream_t, baton_class> Classes;
  std::map<cudaStream_t, uint32_t> Queues;
  std::atomic<uint64_t> PassedThrough{0};
};

Router *Router::get() {
  static Router *Instance = []() -> Router * {
    try {
      auto *Created = new Router();
      std::atexit([] {
        if (Router::get()->synchronize() != 0)
          std::fprintf(stderr, "baton: scheduled work failed before exit\n");
      });
      return Created;
    } catch (const std::exception &E) {
      std::fprintf(stderr, "baton: launches are not scheduled: %s\n",
                   E.what());
      return nullptr;
    }
  }();
  return Instance;
}

/// The Baton kernel behind a host stub, or nullopt (reported once) if the
/// CUDA runtime or the driver cannot tell.
std::optional<Kernel> Router::kernelFor(const void *Func) {
  std::lock_guard Lock(Mutex);
  auto [It, New] = Kernels.try_emplace(Func);
  if (!New)
    return It->second;
  cudaFunction_t Fn = nullptr;
  cudaError_t E = cudaGetFuncBySymbol(&Fn, Func);
  if (E != cudaSuccess) {
    std::fprintf(stderr,
                 "baton: cudaGetFuncBySymbol failed (%s); launches of this "
                 "kernel are not scheduled\n",
                 cudaGetErrorString(E));
    return std::nullopt;
  }
  try {
    It->second = R.kernelOf(reinterpret_cast<CUfunction>(Fn));
  } catch (const std::exception &Err) {
    std::fprintf(stderr, "baton: %s; launches of this kernel are not "
                         "scheduled\n", Err.what());
    return std::nullopt;
  }
  if (verbose()) {
    const Kernel &K = *It->second;
    std::fprintf(stderr, "baton: kernel '%s': %s\n", K.name().c_str(),
                 K.hasVariant(Mode::Ptb)      ? "PTB and slice variants"
                 : K.hasVariant(Mode::Slices) ? "slice variant only"
                                              : "no variants (runs whole)");
  }
  return It->second;
}

uint32_t Router::queueOf(cudaStream_t Stream) {
  std::lock_guard Lock(Mutex);
  auto [It, New] = Queues.try_emplace(Stream, uint32_t(Queues.size() + 1));
  return It->second;
}

void Router::setClass(cudaStream_t Stream, baton_class Class) {
  std::lock_guard Lock(Mutex);
  Classes[Stream] = Class;
}

cudaError_t Router::launch(const void *Func, dim3 Grid, dim3 Block,
                           void **Args, size_t SharedMem,
                           cudaStream_t Stream) {
  std::optional<Kernel> K = kernelFor(Func);
  if (!K) {
    ++PassedThrough;
    return cudaLaunchKernel(Func, Grid, Block, Args, SharedMem, Stream);
  }
  baton_class Class = DefaultClass.load();
  {
    std::lock_guard Lock(Mutex);
    if (auto It = Classes.find(Stream); It != Classes.end())
      Class = It->second;
  }
  LaunchConfig Config;
  Config.Grid = {Grid.x, Grid.y, Grid.z};
  Config.Block = {Block.x, Block.y, Block.z};
  Config.SharedMemBytes = static_cast<uint32_t>(SharedMem);
  // A null stream in RuntimeWork means "any stream", so the default stream
  // is named explicitly: CUDA's 0 is the legacy default stream.
  Config.Stream = Stream ? reinterpret_cast<CUstream>(Stream) : CU_STREAM_LEGACY;
  try {
    bool Lc = Class == BATON_CLASS_LATENCY_CRITICAL;
    Work W = makeWork(RuntimeWork::capture(*K, Config, Args),
                      Lc ? PriorityClass::LatencyCritical
                         : PriorityClass::BestEffort,
                      Lc ? 0 : queueOf(Stream));
    W.IssueAtOnce = true;
    Service.submit(std::move(W));
  } catch (const std::exception &Err) {
    std::fprintf(stderr, "baton: launch of '%s' failed: %s\n",
                 K->name().c_str(), Err.what());
    return cudaErrorLaunchFailure;
  }
  return cudaSuccess;
}

int Router::synchronize() {
  try {
    Service.waitIdle();
    return 0;
  } catch (const std::exception &E) {
    std::fprintf(stderr, "baton: %s\n", E.what());
    return -1;
  }
}

baton_routing_stats Router::stats() {
  ServiceStats S = Service.stats();
  return {S.LatencyCritical, S.BestEffort, S.Resumes, PassedThrough.load()};
}

/// Scheduled launches leave streams waiting on the device for work the
/// scheduler issues later. Two driver defaults do not mix with that, so
/// they are changed before the program's first CUDA call (unless the
/// environment sets them): a waiting stream holds up every stream that
/// shares its hardware queue, and the driver spreads streams over
/// CUDA_DEVICE_MAX_CONNECTIONS queues (8 by default, 32 at most); and lazy
/// module loading may wait for an idle device, which a waiting stream
/// prevents (Runtime::kernelOf also loads each module whole).
[[gnu::constructor]] void prepareDriver() {
  if (!scheduleRequested())
    return;
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
  setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);
}

bool scheduling() {
  Routing S = State.load(std::memory_order_relaxed);
  if (S == Routing::Undecided) {
    readEnvironment();
    S = State.load();
  }
  return S == Routing::On;
}

/// The router if scheduling is on and the runtime started, else null.
Router *active() { return scheduling() ? Router::get() : nullptr; }

} // namespace

extern "C" {

cudaError_t baton_cudaLaunchKernel(const void *Func, dim3 Grid, dim3 Block,
                                   void **Args, size_t SharedMem,
                                   cudaStream_t Stream) {
  Router *R = active();
  if (!R)
    return cudaLaunchKernel(Func, Grid, Block, Args, SharedMem, Stream);
  return R->launch(Func, Grid, Block, Args, SharedMem, Stream);
}

cudaError_t baton_cudaLaunchKernel_ptsz(const void *Func, dim3 Grid,
                                        dim3 Block, void **Args,
                                        size_t SharedMem,
                                        cudaStream_t Stream) {
  Router *R = active();
  if (!R)
    return cudaLaunchKernel_ptsz(Func, Grid, Block, Args, SharedMem, Stream);
  // In such a build the default stream means the calling thread's.
  if (!Stream)
    Stream = cudaStreamPerThread;
  return R->launch(Func, Grid, Block, Args, SharedMem, Stream);
}

int baton_enable_scheduling(baton_class Class) {
  DefaultClass = Class;
  Routing Expected = Routing::Undecided;
  if (State.compare_exchange_strong(Expected, Routing::On))
    return 0;
  return Expected == Routing::On ? 0 : -1;
}

int baton_scheduling_enabled(void) { return scheduling() ? 1 : 0; }

void baton_set_stream_class(cudaStream_t Stream, baton_class Class) {
  if (Router *R = active())
    R->setClass(Stream, Class);
}

unsigned long long baton_lc_begin(unsigned Sms) {
  Router *R = active();
  if (!R)
    return 0;
  try {
    return R->service().beginExternal(Sms);
  } catch (const std::exception &E) {
    std::fprintf(stderr, "baton: baton_lc_begin: %s\n", E.what());
    return 0;
  }
}

void baton_lc_end(unsigned long long Work) {
  Router *R = active();
  if (!Work || !R)
    return;
  try {
    R->service().endExternal(Work);
  } catch (const std::exception &E) {
    std::fprintf(stderr, "baton: baton_lc_end: %s\n", E.what());
  }
}

int baton_synchronize(void) {
  Router *R = active();
  return R ? R->synchronize() : 0;
}

baton_routing_stats baton_get_routing_stats(void) {
  Router *R = active();
  return R ? R->stats() : baton_routing_stats{};
}

} // extern "C"
