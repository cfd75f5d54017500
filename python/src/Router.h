//===- Router.h - Launches the Python package hands to the scheduler -*- C++ -*-===//
//
// What baton._core adds to the process's LaunchRouter (lib/LaunchShim),
// which owns the Runtime and the SchedulerService that the launch shim and
// the launch interposer use too: one scheduler per process, one exit wait,
// one membership of the GPU's registry of sharing processes (share.h).
//
//  * Binding: the package names a kernel by its CUfunction (Triton loaded
//    it); bind() finds the variants beside it in its module (the PTX stage
//    hook put them into Triton's cubin), bindImage() in a cubin the package
//    assembled from the kernel's PTX after it was loaded (the usual case
//    under torch.compile: Inductor compiles in worker processes, and caches
//    cubins under keys that know nothing of Baton).
//  * submit(): a best-effort launch of a bound kernel with the arguments
//    the package packed, handed to LaunchRouter::submit.
//  * Latency-critical brackets: explicit (lcBegin/lcEnd, as
//    baton_lc_begin/end), or automatic: lcTouch() opens a bracket when LC
//    work is queued, and a watcher thread closes it once every stream
//    touched is idle and none was touched for a grace period; a thread that
//    only launches kernels needs no bracket of its own. A bracket is also
//    announced to other processes sharing the GPU (share.h), whose
//    best-effort work then yields, unless BATON_SHARE=0. joinRegistry()
//    makes this process a latency-critical member before its first
//    bracket.
//  * remoteLatencyCritical(): whether another process of the GPU's
//    registry is latency-critical (so best-effort launches are worth
//    routing here).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PYTHON_ROUTER_H
#define BATON_PYTHON_ROUTER_H

#include "baton/Runtime.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace baton::python {

struct KernelBinding {
  std::string Name;
  bool Slice = false;
  bool Ptb = false;
  std::vector<size_t> ParamSizes;
  /// The variants come from an image the package assembled (bindImage).
  bool OwnModule = false;
  /// Registers per thread of the original kernel, as ptxas allocated them.
  uint32_t Registers = 0;
};

struct RouterStats {
  uint64_t LatencyCritical = 0;
  uint64_t BestEffort = 0;
  uint64_t Resumes = 0;
  uint64_t Pauses = 0;
  uint64_t Originals = 0;     ///< best-effort launches run as the originals
  uint64_t Brackets = 0;      ///< explicit LC brackets opened
  uint64_t AutoBrackets = 0;  ///< automatic LC brackets opened
  uint64_t Announced = 0;     ///< brackets announced to other processes
  uint64_t GateWaits = 0;     ///< best-effort launches held during a bracket
  uint64_t GateWaitUs = 0;    ///< ... and how long, in total
  uint64_t Drains = 0; ///< module loads that drained paused routed work
  uint64_t ExpiredBrackets = 0; ///< brackets that outlived the lease
};

class Router {
public:
  /// The router, created on first use over the process's LaunchRouter;
  /// throws std::runtime_error if the runtime cannot start (no driver, no
  /// device; LaunchRouter says why on stderr). Never destroyed.
  static Router &get();
  static bool running();

  /// A CUfunction handle names another kernel once its module is unloaded
  /// and a later load reuses it (Triton past 3.6 unloads a kernel nobody
  /// holds). Each handle has an epoch, which forget() advances: a caller
  /// reads it while the kernel it means is loaded (epoch()), and bind() and
  /// bindImage() throw instead of binding a handle whose epoch has moved
  /// on, so variants prepared for an unloaded kernel never serve the one
  /// loaded after it. Epochs need no running router.
  static uint64_t epoch(CUfunction Function);
  /// \p Function is unloaded or was loaded again: its epoch advances, and
  /// what was bound or timed for it is dropped. The kernel it was bound to
  /// is kept, never destroyed: that would unload Baton's module of its
  /// variants, and an unload while routed work waits paused has not been
  /// shown safe. Returns that kernel's variant handles.
  static std::vector<CUfunction> forget(CUfunction Function);

  KernelBinding bind(CUfunction Function, uint64_t Epoch);
  KernelBinding bindImage(CUfunction Function,
                          std::span<const std::byte> Image,
                          const std::string &Name, uint64_t Epoch);
  /// For a module load the program makes (Triton loading a kernel it
  /// compiled): holds best-effort work back once none of it is left on the
  /// device (SchedulerService::holdBestEffort; a load made while a routed
  /// launch waits paused never returns), waiting \p Patience for LC work
  /// to release paused work before the scheduler drains it. Returns the
  /// hold's id (never 0) for releaseHold().
  uint64_t holdForLoad(std::chrono::microseconds Patience);
  /// Ends a hold of holdForLoad(); 0 and unknown ids are ignored.
  void releaseHold(uint64_t Id);
  /// Best-effort work on \p Stream (null: the legacy default stream), in
  /// the order of that stream. \p Params: the values back to back. False,
  /// with nothing issued, if the stream is capturing a CUDA graph: the
  /// caller launches the original, which the graph captures.
  bool submit(CUfunction Function, Dim3 Grid, Dim3 Block, uint32_t Shared,
              CUstream Stream, std::span<const std::byte> Params);

  /// Joins the GPU's registry of sharing processes (share.h) as
  /// latency-critical now instead of at the first announced bracket, so
  /// that best-effort processes count this one as a peer before its first
  /// request: while one is present they keep their kernels preemptible
  /// (SchedulerOptions::OriginalsWhenIdleWithBlocksUpTo). False if
  /// BATON_SHARE=0 or the join failed (why is on stderr, once).
  bool joinRegistry();

  uint64_t lcBegin(uint32_t Sms);
  void lcEnd(uint64_t Id);
  /// LC work is about to be queued on \p Stream: opens a bracket if none
  /// is open. False, with nothing done, if the stream is capturing a CUDA
  /// graph (the work is captured, not run; its replays need a bracket of
  /// their own).
  bool lcTouch(CUstream Stream, uint32_t Sms, std::chrono::microseconds Grace);
  /// Whether a latency-critical bracket (explicit or automatic) is open
  /// here, or, with BATON_BE_GATE_PEERS=1, in another process of the GPU's
  /// registry (share.h; with the linger after it, as the scheduler's
  /// best-effort work yields). Off by default: on the H200, under MPS, it
  /// cost the training process 0.58 -> 0.36 of its steps at 50% load for
  /// no p99 gain shown, and time sliced it did not help
  /// (docs/benchmarks.md, seventeenth session). Cheap: best-effort threads
  /// ask before each launch.
  bool lcOpen() const;
  /// Blocks the calling (best-effort) thread while lcOpen(), at most
  /// \p Max; returns how long it waited. A bracket of this process stops
  /// holding it once it is open longer than its lease
  /// (LaunchRouter::bracketLease; an automatic one's renews with new
  /// latency-critical launches), as it stops holding the scheduler's
  /// best-effort work back. Best-effort kernels issued
  /// meanwhile would only wait paused on the device, or, for kernels
  /// Baton does not route, compete with the latency-critical work; held
  /// back on the host, they do neither, and the thread leaves the
  /// interpreter to the latency-critical one.
  std::chrono::microseconds waitWhileLc(std::chrono::microseconds Max);

  /// Kernel timing, for routing decisions: a launch of \p Function on
  /// \p Stream between timeBegin and timeEnd is timed with events (a few
  /// launches per kernel). kernelTime is the median of the completed
  /// samples once there are \p Samples of them, else a negative value.
  uint64_t timeBegin(CUfunction Function, CUstream Stream);
  void timeEnd(uint64_t Token, CUstream Stream);
  double kernelTimeUs(CUfunction Function, size_t Samples);

  void synchronize();
  RouterStats stats();

  /// Whether a live process of the GPU's registry (share.h) other than
  /// this one is latency-critical. Reads the registry without joining it;
  /// false where there is none. Needs no runtime.
  static bool remoteLatencyCritical(int Device = 0);

  Router(const Router &) = delete;
  Router &operator=(const Router &) = delete;

private:
  Router();
  struct Impl;
  Impl *P;
};

} // namespace baton::python

#endif // BATON_PYTHON_ROUTER_H
