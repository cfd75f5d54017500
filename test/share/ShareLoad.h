//===- ShareLoad.h - Latency-critical and best-effort GPU load --*- C++ -*-===//
//
// The two sides of a shared GPU, as share_gpu runs them in separate
// processes, both on the `record` kernel of test/gpu/kernels (every block
// counts itself, then spins a given time):
//
//  * latency-critical: requests of one original `record` launch each, with
//    cuLaunchKernel as a program that Baton never rebuilt would; each is
//    announced to the registry before it is queued and ended on its stream
//    (baton_share_end_on_stream), then waited for; its latency is from the
//    announce to the end of the wait;
//  * best-effort: PTB launches of `record` through a SchedulerService on a
//    stream of its own, in batches, which yields while peers' LC work is
//    outstanding (SchedulerService::yieldWhile + baton_share_should_yield);
//    sharing, its first PTB runs go on private streams (LaunchConfig).
//
// A null baton_share runs the same load without telling anyone: the GPU's
// own time slicing (or MPS) is then all that separates the two.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_SHARE_SHARELOAD_H
#define BATON_TEST_SHARE_SHARELOAD_H

#include "baton/SchedulerService.h"
#include "baton/share.h"

#include <functional>
#include <vector>

namespace baton::test {

struct LcOptions {
  uint32_t Blocks = 264;     ///< two per SM on an H100/H200
  uint64_t SpinNs = 50000;   ///< per block
  double GapMinUs = 500;     ///< idle time between requests: log-uniform
  double GapMaxUs = 2000;
};

struct LcResult {
  std::vector<double> LatencyUs;
  uint64_t BlocksOff = 0; ///< blocks that ran other than once per request
};

LcResult runLatencyCritical(const Kernel &K, baton_share Share,
                            const LcOptions &O,
                            const std::function<bool()> &Stop);

struct BeOptions {
  uint32_t Blocks = 1u << 20; ///< per launch
  uint64_t SpinNs = 50000;    ///< per block: bounds how fast BE yields
  uint32_t Batch = 4;         ///< launches submitted between waits
  /// Sharing, first PTB runs go on private streams, as the launch router
  /// does (LaunchConfig::FirstRunOnPrivateStream); this keeps them on the
  /// user's stream, to measure what that costs an LC peer.
  bool FirstRunsOnUserStream = false;
  /// Sharing, PTB runs end with the plain finalize kernel, as the launch
  /// router has them (LaunchConfig::DependentFinalize); this keeps the
  /// dependent one, to measure what it costs an LC peer.
  bool DependentFinalize = false;
};

struct BeResult {
  uint64_t Launches = 0;
  double Seconds = 0;
  sched::ServiceStats Stats;
  uint64_t BlocksOff = 0; ///< blocks that ran other than once per launch
  double blocksPerSecond(const BeOptions &O) const {
    return Seconds > 0 ? double(Launches) * O.Blocks / Seconds : 0;
  }
};

BeResult runBestEffort(Runtime &Rt, const Kernel &K, baton_share Share,
                       const BeOptions &O, const std::function<bool()> &Stop);

struct Percentiles {
  double P50 = 0, P99 = 0, Max = 0, Mean = 0;
};
Percentiles percentiles(std::vector<double> Values);

/// CLOCK_MONOTONIC in nanoseconds (the registry's clock, one per host).
uint64_t monotonicNs();

} // namespace baton::test

#endif // BATON_TEST_SHARE_SHARELOAD_H
