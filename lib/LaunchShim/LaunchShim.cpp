//===- LaunchShim.cpp - Route kernel launches through the scheduler -------===//
//
// The launch shim behind baton/cuda_launch.h. With scheduling off a launch
// costs one relaxed atomic load before cudaLaunchKernel. With it on, the
// first launch of a kernel finds its CUfunction (cudaGetFuncBySymbol: the
// CUDA runtime loads the program's fatbin, variants included, into the
// primary context that baton::Runtime shares) and every launch goes to the
// process's LaunchRouter, as work of its stream's class. A kernel of an
// object built with -baton-lazy gets its variants there and then
// (LazyVariants.h).
//
//===----------------------------------------------------------------------===//

#include "baton/cuda_launch.h"

#include "LaunchRouter.h"
#include "LazyVariants.h"

#include "baton/Capture.h"

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
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

/// Reads BATON_SCHEDULE once, unless baton_enable_scheduling() came first.
void readEnvironment() {
  std::call_once(EnvRead, [] {
    if (State.load() != Routing::Undecided)
      return;
    std::optional<PriorityClass> Class = scheduleFromEnvironment();
    if (!Class) {
      State = Routing::Off;
      return;
    }
    if (*Class == PriorityClass::LatencyCritical)
      DefaultClass = BATON_CLASS_LATENCY_CRITICAL;
    State = Routing::On;
  });
}

/// The shim's part of routing: host stubs to Baton kernels, stream classes.
class Shim {
public:
  /// The process's shim, over the router; null if the router is.
  static Shim *get();

  cudaError_t launch(const void *Func, dim3 Grid, dim3 Block, void **Args,
                     size_t SharedMem, cudaStream_t Stream);
  void setClass(cudaStream_t Stream, baton_class Class);
  baton_routing_stats stats();
  LaunchRouter &router() { return Router; }

private:
  explicit Shim(LaunchRouter &Router) : Router(Router) {}
  std::optional<Kernel> kernelFor(const void *Func);
  std::optional<Kernel> resolve(const void *Func);

  LaunchRouter &Router;
  LazyVariants Lazy;
  std::mutex Mutex; ///< guards the maps
  std::unordered_map<const void *, std::optional<Kernel>> Kernels;
  std::map<cudaStream_t, baton_class> Classes;
  std::atomic<uint64_t> PassedThrough{0};
};

Shim *Shim::get() {
  static Shim *Instance = []() -> Shim * {
    LaunchRouter *R = LaunchRouter::get();
    return R ? new Shim(*R) : nullptr;
  }();
  return Instance;
}

/// The Baton kernel behind a host stub, or nullopt (reported once) if the
/// CUDA runtime or the driver cannot tell. Resolved without the lock, which
/// other threads' launches need: a -baton-lazy kernel's first launch may
/// build its object's variants for seconds. Two threads may resolve one
/// kernel at once; the first to finish is kept.
std::optional<Kernel> Shim::kernelFor(const void *Func) {
  {
    std::lock_guard Lock(Mutex);
    if (auto It = Kernels.find(Func); It != Kernels.end())
      return It->second;
  }
  std::optional<Kernel> K;
  {
    // Loading modules and building lazy variants must not break another
    // thread's graph capture (baton/Capture.h).
    RelaxedCaptureMode Relaxed;
    K = resolve(Func);
  }
  std::lock_guard Lock(Mutex);
  return Kernels.try_emplace(Func, std::move(K)).first->second;
}

std::optional<Kernel> Shim::resolve(const void *Func) {
  cudaFunction_t Fn = nullptr;
  cudaError_t E = cudaGetFuncBySymbol(&Fn, Func);
  if (E != cudaSuccess) {
    std::fprintf(stderr,
                 "baton: cudaGetFuncBySymbol failed (%s); launches of this "
                 "kernel are not scheduled\n",
                 cudaGetErrorString(E));
    return std::nullopt;
  }
  std::optional<Kernel> K;
  try {
    K = Router.runtime().kernelOf(reinterpret_cast<CUfunction>(Fn));
  } catch (const std::exception &Err) {
    std::fprintf(stderr, "baton: %s; launches of this kernel are not "
                         "scheduled\n", Err.what());
    return std::nullopt;
  }
  if (!K->hasVariant(Mode::Ptb) && !K->hasVariant(Mode::Slices)) {
    try {
      if (std::optional<Kernel> Built =
              Lazy.kernelFor(Router, Func, *K))
        K = std::move(Built);
    } catch (const std::exception &Err) {
      // As for a kernel an eager build refused: said only when asked.
      if (verboseRouting())
        std::fprintf(stderr, "baton: kernel '%s' has no variants built at "
                             "its first launch: %s\n",
                     K->name().c_str(), Err.what());
    }
  }
  if (verboseRouting())
    std::fprintf(stderr, "baton: kernel '%s': %s\n", K->name().c_str(),
                 K->hasVariant(Mode::Ptb)      ? "PTB and slice variants"
                 : K->hasVariant(Mode::Slices) ? "slice variant only"
                                               : "no variants (runs whole)");
  return K;
}

void Shim::setClass(cudaStream_t Stream, baton_class Class) {
  std::lock_guard Lock(Mutex);
  Classes[Stream] = Class;
}

cudaError_t Shim::launch(const void *Func, dim3 Grid, dim3 Block, void **Args,
                         size_t SharedMem, cudaStream_t Stream) {
  // Captured as it is, before anything is looked up: a first launch would
  // load modules here (baton/Capture.h).
  CUstream S = Stream ? reinterpret_cast<CUstream>(Stream) : CU_STREAM_LEGACY;
  if (streamCapturing(S)) {
    ++PassedThrough;
    return cudaLaunchKernel(Func, Grid, Block, Args, SharedMem, Stream);
  }
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
  RoutedLaunch Launch;
  Launch.Grid = {Grid.x, Grid.y, Grid.z};
  Launch.Block = {Block.x, Block.y, Block.z};
  Launch.SharedMemBytes = static_cast<uint32_t>(SharedMem);
  Launch.Stream = reinterpret_cast<CUstream>(Stream);
  Launch.Args = Args;
  switch (Router.submit(*K, Launch,
                        Class == BATON_CLASS_LATENCY_CRITICAL
                            ? PriorityClass::LatencyCritical
                            : PriorityClass::BestEffort)) {
  case LaunchRouter::Submitted::Scheduled:
    return cudaSuccess;
  case LaunchRouter::Submitted::Capturing:
    ++PassedThrough; // captured as it is; the graph's replays bypass Baton
    return cudaLaunchKernel(Func, Grid, Block, Args, SharedMem, Stream);
  case LaunchRouter::Submitted::Failed:
    break;
  }
  return cudaErrorLaunchFailure;
}

baton_routing_stats Shim::stats() {
  ServiceStats S = Router.service().stats();
  return {S.LatencyCritical, S.BestEffort, S.Resumes, PassedThrough.load()};
}

[[gnu::constructor]] void prepareDriver() { prepareDriverForScheduling(); }

bool scheduling() {
  Routing S = State.load(std::memory_order_relaxed);
  if (S == Routing::Undecided) {
    readEnvironment();
    S = State.load();
  }
  return S == Routing::On;
}

/// The shim if scheduling is on and the runtime started, else null.
Shim *active() { return scheduling() ? Shim::get() : nullptr; }

} // namespace

extern "C" {

cudaError_t baton_cudaLaunchKernel(const void *Func, dim3 Grid, dim3 Block,
                                   void **Args, size_t SharedMem,
                                   cudaStream_t Stream) {
  Shim *S = active();
  if (!S)
    return cudaLaunchKernel(Func, Grid, Block, Args, SharedMem, Stream);
  return S->launch(Func, Grid, Block, Args, SharedMem, Stream);
}

cudaError_t baton_cudaLaunchKernel_ptsz(const void *Func, dim3 Grid,
                                        dim3 Block, void **Args,
                                        size_t SharedMem,
                                        cudaStream_t Stream) {
  Shim *S = active();
  if (!S)
    return cudaLaunchKernel_ptsz(Func, Grid, Block, Args, SharedMem, Stream);
  // In such a build the default stream means the calling thread's.
  if (!Stream)
    Stream = cudaStreamPerThread;
  return S->launch(Func, Grid, Block, Args, SharedMem, Stream);
}

int baton_enable_scheduling(baton_class Class) {
  DefaultClass = Class;
  Routing Expected = Routing::Undecided;
  if (State.compare_exchange_strong(Expected, Routing::On))
    return 0;
  return Expected == Routing::On ? 0 : -1;
}

int baton_scheduling_enabled(void) { return scheduling() ? 1 : 0; }

void baton_cuda_lazy_variants(const void *AddressInObject) {
  LazyVariants::registerObject(AddressInObject);
}

void baton_set_stream_class(cudaStream_t Stream, baton_class Class) {
  if (Shim *S = active())
    S->setClass(Stream, Class);
}

unsigned long long baton_lc_begin(unsigned Sms) {
  Shim *S = active();
  if (!S)
    return 0;
  try {
    return S->router().service().beginExternal(Sms);
  } catch (const std::exception &E) {
    std::fprintf(stderr, "baton: baton_lc_begin: %s\n", E.what());
    return 0;
  }
}

void baton_lc_end(unsigned long long Work) {
  Shim *S = active();
  if (!Work || !S)
    return;
  try {
    S->router().service().endExternal(Work);
  } catch (const std::exception &E) {
    std::fprintf(stderr, "baton: baton_lc_end: %s\n", E.what());
  }
}

int baton_synchronize(void) {
  Shim *S = active();
  return S ? S->router().synchronize() : 0;
}

baton_routing_stats baton_get_routing_stats(void) {
  Shim *S = active();
  return S ? S->stats() : baton_routing_stats{};
}

} // extern "C"
