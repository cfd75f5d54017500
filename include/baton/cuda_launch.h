/*===- baton/cuda_launch.h - Launches routed through the scheduler -*- C -*-===*\
 *
 * The launch shim of CUDA programs built with the Baton plugin. On the host
 * side of a clang CUDA build, the plugin's `baton-route-launches` pass makes
 * every launch of a kernel (the `<<<...>>>` stubs, and direct
 * cudaLaunchKernel calls naming a kernel) call baton_cudaLaunchKernel
 * instead of cudaLaunchKernel, with the same arguments. Link the program
 * with libbaton_cuda (CMake: target `baton::cuda`).
 *
 * With scheduling off, the shim calls cudaLaunchKernel and nothing else: the
 * program behaves exactly as it was written. Scheduling is off unless the
 * environment sets BATON_SCHEDULE, or the program calls
 * baton_enable_scheduling() before its first launch:
 *
 *   BATON_SCHEDULE=best-effort       launches are best-effort work
 *   BATON_SCHEDULE=latency-critical  launches are latency-critical work
 *   BATON_SCHEDULE=off (or unset)    no scheduling
 *
 * With scheduling on, each launch is handed to one process-wide scheduler
 * (baton/SchedulerService.h): latency-critical launches run as the original
 * kernel at once; best-effort launches run as PTB workers or slices, paused
 * or shrunk while latency-critical work runs, resumed after. Each launch
 * stays on the stream it was issued on, in order with everything else there
 * (copies, events, synchronisation). Streams can be given a class of their
 * own with baton_set_stream_class().
 *
 * With BATON_SCHEDULE set, the shim also sets CUDA_DEVICE_MAX_CONNECTIONS
 * to 32 (the driver's maximum) and CUDA_MODULE_LOADING to EAGER before
 * main(), unless the environment sets them: a scheduled launch can leave a
 * stream waiting on the device, and a waiting stream holds up the other
 * streams of its hardware queue and any lazy module load.
 *
 * BATON_LAUNCHES_AHEAD=N sets how many best-effort launches of a stream
 * are started behind the one running (SchedulerOptions::LaunchesAhead);
 * BATON_VERBOSE=1 prints, once per kernel, how its launches are routed;
 * BATON_TRACE=1 prints every scheduling decision.
 *
 * Limits, for now:
 *  - Device 0 only (the scheduler's runtime is created for it).
 *  - baton_enable_scheduling() cannot change the driver settings above if
 *    CUDA is already initialised; prefer the environment variable.
 *  - A paused best-effort launch holds its stream. Latency-critical work on
 *    the legacy default stream waits for every blocking stream, so it can
 *    wait for a paused launch on a stream made by cudaStreamCreate: give
 *    latency-critical work a non-blocking stream.
 *  - Launches on cudaStreamPerThread from different threads share one
 *    best-effort queue, so they run one after another.
\*===----------------------------------------------------------------------===*/
#ifndef BATON_CUDA_LAUNCH_H
#define BATON_CUDA_LAUNCH_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum baton_class {
  BATON_CLASS_BEST_EFFORT = 0,
  BATON_CLASS_LATENCY_CRITICAL = 1,
} baton_class;

/* Drop-in replacements with cudaLaunchKernel's signature (and that of
   cudaLaunchKernel_ptsz, for builds with a per-thread default stream). */
cudaError_t baton_cudaLaunchKernel(const void *func, dim3 grid, dim3 block,
                                   void **args, size_t shared_mem,
                                   cudaStream_t stream);
cudaError_t baton_cudaLaunchKernel_ptsz(const void *func, dim3 grid,
                                        dim3 block, void **args,
                                        size_t shared_mem,
                                        cudaStream_t stream);

/* Turns scheduling on with launches of class `default_class` unless their
   stream says otherwise. Returns 0, or -1 if launches were already routed
   with scheduling off (it must be called before the first launch). */
int baton_enable_scheduling(baton_class default_class);
/* Nonzero if launches are being scheduled. */
int baton_scheduling_enabled(void);
/* Launches on `stream` are of class `cls` from now on. */
void baton_set_stream_class(cudaStream_t stream, baton_class cls);
/* Brackets latency-critical work the program launches itself, through
   libraries the plugin did not build (cuBLAS, cuDNN, PyTorch): best-effort
   launches yield to it from baton_lc_begin() until baton_lc_end(). `sms` is
   how many SMs it needs; 0 (or all) pauses best-effort work, fewer shrinks
   it to the rest. Call baton_lc_begin() before launching the work, and
   baton_lc_end() once it has completed. Neither waits for the scheduler:
   both hand the change to its thread, which makes best-effort work yield
   or resume within one of its passes (microseconds), while the caller goes
   on launching. Returns 0 with scheduling off. */
unsigned long long baton_lc_begin(unsigned sms);
void baton_lc_end(unsigned long long work);
/* Waits until every scheduled launch has completed (cudaDeviceSynchronize
   does too: a paused launch holds its stream until it completes). Returns 0,
   or -1 with a message on stderr if a launch failed. */
int baton_synchronize(void);

/* Called by a constructor that the plugin adds, with -baton-lazy, to each
   object whose kernels it only checked: with scheduling on, the first launch
   of one of the object's kernels builds the variants of all of them from
   the PTX of its fatbins (as baton-recompile does, with ptxas from
   $CUDA_PATH/bin, $CUDA_HOME/bin or /usr/local/cuda/bin) into the side-module
   cache ($BATON_CACHE_DIR, else $XDG_CACHE_HOME/baton, else ~/.cache/baton),
   where later runs find them. Programs do not call it themselves. */
void baton_cuda_lazy_variants(const void *address_in_object);

/* Counters since scheduling was enabled, for logs and tests. */
typedef struct baton_routing_stats {
  unsigned long long latency_critical; /* launches routed as LC */
  unsigned long long best_effort;      /* launches routed as BE */
  unsigned long long resumes;          /* BE relaunches after a pause */
  unsigned long long passed_through;   /* launches not scheduled */
} baton_routing_stats;
baton_routing_stats baton_get_routing_stats(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BATON_CUDA_LAUNCH_H */
