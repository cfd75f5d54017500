//===- BypassGate.h - Unrouted kernels wait while LC work runs --*- C++ -*-===//
//
// Kernels Baton does not route (cuBLAS, cuDNN, ATen's own, Triton kernels
// run as originals, CUDA graphs) cannot be paused once they run, and a
// stream priority only orders the blocks of kernels already eligible: a
// best-effort kernel queued before a latency-critical request can still
// take the SMs between two of the request's kernels. The gate holds them
// back at launch granularity, on the device:
//
//  * CUPTI calls it on entry to every kernel and graph launch the process
//    makes through the driver (cuLaunchKernel, cuLaunchKernelEx,
//    cuLaunchCooperativeKernel and their _ptsz forms, cuGraphLaunch).
//  * For a launch by a best-effort thread (setThreadClass; threads with no
//    class take the default class), of anything but a Baton variant (those
//    pause by themselves) and the runtime's baton_finalize, in the
//    scheduler's context, on a stream that is not capturing a graph, it
//    first queues on the launch's stream a wait (cuStreamWaitValue32) for
//    a word in mapped host memory to be 0.
//  * The word is 1 from the moment a latency-critical bracket of the
//    process opens while none is (hold(), from the Router) until the last
//    one closes (release()), for at most the hold's bound: a best-effort
//    stream stops before its next unrouted kernel (a CUDA graph counts as
//    one), so the latency-critical work waits for at most the one already
//    running on it. Brackets that overlap or follow each other without a
//    gap are one hold. Past the bound (GateHold.h keeps it) the word
//    returns to 0 until the next hold: a stream held longer than that
//    would block a module load or a stream creation of the process, or a
//    latency-critical request that itself waits for best-effort work
//    (docs/scheduling.md, "Deadlocks avoided").
//  * It listens only while the process's latency-critical work is about:
//    with no bracket opening or closing for the idle time, CUPTI's
//    callbacks go off (they are what the gate costs a job of many short
//    launches) and the next bracket turns them on before it holds
//    (GateHold.h). The first request after an idle spell may then wait for
//    what the best-effort streams queued meanwhile.
//  * A kernel known to be short (setShort(): baton.triton times Triton
//    kernels) goes without the wait while the short kernels queued on its
//    stream since the last wait stay within a budget (ShortRuns.h): the
//    wait and the callback cost more than such a kernel is worth holding
//    back. The request then waits for at most the running kernel and one
//    budget of short ones.
//
// CUPTI is loaded at start() (dlopen; PyTorch's copy if it is loaded
// already) and allows one subscriber per process: with a profiler or a
// CUDA tool attached, start() says so and the gate stays off.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PYTHON_BYPASSGATE_H
#define BATON_PYTHON_BYPASSGATE_H

#include <cuda.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace baton::python {

struct BypassGateStats {
  bool On = false;
  std::string Why;       ///< why the gate is off (empty while on)
  uint64_t Gated = 0;    ///< launches that were queued behind the word
  uint64_t Holds = 0;    ///< brackets that set the word
  uint64_t Expired = 0;  ///< holds that reached their bound
  bool Listening = false; ///< the launch callbacks are on
  uint64_t Sleeps = 0;   ///< times it stopped listening, idle
  uint64_t Wakes = 0;    ///< times a hold made it listen again
  /// CUPTI's refusal to turn the callbacks on or off, if the last switch
  /// failed (empty otherwise).
  std::string ListenError;
};

class BypassGate {
public:
  /// Subscribes to CUPTI (the library at \p CuptiPath if non-empty, else
  /// one already loaded, else libcupti.so.13 from the loader's path) and
  /// enables the launch callbacks. Holds last at most \p MaxHold; with no
  /// hold beginning or ending for \p IdleAfter (0: never) the callbacks
  /// go off until the next hold. Returns an empty string on success, else
  /// why the gate is off. Needs the Router's runtime. Idempotent while on
  /// (the bounds change).
  static std::string start(const std::string &CuptiPath,
                           std::chrono::microseconds MaxHold,
                           std::chrono::microseconds IdleAfter);
  /// Unsubscribes (the word returns to 0; streams waiting on it go on).
  static void stop();

  /// The class of launches from the thread with id \p Thread (its
  /// pthread_t, as Python's threading.get_ident()).
  enum class ThreadClass : uint8_t { None, BestEffort, LatencyCritical };
  static void setThreadClass(uint64_t Thread, ThreadClass Class);
  /// The class of threads that have none (None: they are not gated).
  static void setDefaultClass(ThreadClass Class);
  /// Forgets every thread's class; the default becomes None.
  static void clearThreadClasses();

  /// A latency-critical bracket opened while none was open: the word
  /// becomes 1 (if the gate is on) for at most the hold's bound.
  static void hold();
  /// The last open bracket closed: the word becomes 0.
  static void release();

  static BypassGateStats stats();
  /// The microseconds of ungated short kernels a stream may queue between
  /// two waits (baton.torch: min_route_us, below which Triton kernels run
  /// unrouted for the same reason).
  static constexpr double DefaultShortBudgetUs = 100;
  static void setShortBudget(double Us);
  /// \p F is known to take \p Us (a measured median): a short kernel.
  static void setShort(CUfunction F, double Us);
  /// \p F is no longer known to be short: every launch gated again.
  static void clearShort(CUfunction F);
  /// \p F was loaded again (its handle names another kernel now): what
  /// the gate knew of it, name and shortness, is dropped.
  static void forget(CUfunction F);
  /// The \p Count kernel names with the most gated launches, most first,
  /// with their counts; CUDA graph launches count as one "(CUDA graph)".
  static std::vector<std::pair<std::string, uint64_t>> mostGated(size_t Count);
};

} // namespace baton::python

#endif // BATON_PYTHON_BYPASSGATE_H
