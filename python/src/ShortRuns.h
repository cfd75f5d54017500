//===- ShortRuns.h - Short kernels the bypass gate lets through -*- C++ -*-===//
//
// The bypass gate (BypassGate.h) queues a wait before each unrouted
// best-effort launch, and the wait (and CUPTI's callback) costs more than
// a short kernel is worth holding back. So a kernel known to be short
// (baton.triton times Triton kernels and leaves those below min_route_us
// unrouted) goes without a wait, but only until the short kernels queued
// on its stream since the stream's last wait would add up to more than the
// budget, or the stream has had no wait since the gate started: then it
// gets a wait in front. A latency-critical request thus waits, on each
// best-effort stream, for at most the kernel already running and one
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

  /// Whether a short kernel of \p Us may go on \p Stream without a wait:
  /// the stream has had a wait since the last clear(), and the short
  /// kernels queued behind it stay within the budget with this one.
  bool fits(const void *Stream, double Us) const {
    auto It = Runs.find(Stream);
    return It != Runs.end() && It->second + Us <= BudgetUs;
  }

  /// A short kernel of \p Us went on \p Stream without a wait.
  void ranShort(const void *Stream, double Us) { Runs[Stream] += Us; }

  /// A wait was queued on \p Stream before a kernel of \p Us (0 if not
  /// known to be short): the stream's run restarts with it.
  void waited(const void *Stream, double Us) { Runs[Stream] = Us; }

  /// Forgets every stream: what they queued meanwhile is unknown, so each
  /// needs a wait before its next short kernel.
  void clear() { Runs.clear(); }

private:
  double BudgetUs;
  /// Microseconds of short kernels queued since each stream's last wait.
  std::unordered_map<const void *, double> Runs;
};

} // namespace baton::python

#endif // BATON_PYTHON_SHORTRUNS_H
