//===- ShortRuns.h - Short kernels the bypass gate lets through -*- C++ -*-===//
//
// The bypass gate (BypassGate.h) queues a wait before each unrouted
// best-effort launch, and the wait (and CUPTI's callback) costs more than
// a short kernel is worth holding back. So a kernel known to be short
// (baton.triton times Triton kernels and leaves those below min_route_us
// unrouted) goes without a wait, but only until the short kernels queued
// on its stream since the stream's last wait would add up to more than the
// budget: then it gets a wait in front. A latency-critical request thus
// waits for at most the kernel already running on the stream and one
// budget of short kernels behind it.
//
// Host logic only, so that it can be tested anywhere; the caller locks.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PYTHON_SHORTRUNS_H
#define BATON_PYTHON_SHORTRUNS_H

#include <unordered_map>

namespace baton::python {

class ShortRuns {
public:
  explicit ShortRuns(double BudgetUs) : BudgetUs(BudgetUs) {}

  void setBudget(double Us) { BudgetUs = Us; }
  double budget() const { return BudgetUs; }

  /// A kernel known to take \p Us is launched on \p Stream. Returns true if
  /// it needs a wait in front (the caller queues it): the stream's run then
  /// restarts with this kernel.
  bool shortLaunch(const void *Stream, double Us) {
    double &Run = Runs[Stream];
    if (Run + Us <= BudgetUs) {
      Run += Us;
      return false;
    }
    Run = Us;
    return true;
  }

  /// A kernel not known to be short went behind a wait on \p Stream: the
  /// short kernels queued after it start a new run.
  void gatedLaunch(const void *Stream) { Runs[Stream] = 0; }

private:
  double BudgetUs;
  /// Microseconds of short kernels queued since each stream's last wait.
  std::unordered_map<const void *, double> Runs;
};

} // namespace baton::python

#endif // BATON_PYTHON_SHORTRUNS_H
