//===- SimTestSupport.h - Work and checks for scheduler simulations -*- C++ -*-===//
//
// Shared by the tests that drive Scheduler over SimulatedExecutor: pieces of
// work of a given shape, the exactly-once check, and the queueing delay of a
// launch. Their device is 8 SMs of 2048 threads; a BE kernel's 256-thread
// blocks fit 8 per SM (64 workers fill it).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_UNIT_RUNTIME_SIMTESTSUPPORT_H
#define BATON_TEST_UNIT_RUNTIME_SIMTESTSUPPORT_H

#include "baton/Scheduler.h"
#include "baton/SchedulerSim.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace baton::sched::test {

using namespace std::chrono_literals;

/// 8 SMs; 7 us signal, 20 us relaunch, 2 slices in flight.
inline DeviceFacts smallDevice() {
  DeviceFacts D;
  D.Multiprocessors = 8;
  return D;
}

/// Options the tests start from: a 100 us bound, 2 SMs reserved.
inline SchedulerOptions simOptions() {
  SchedulerOptions O;
  O.PreemptionBound = 100us;
  O.MinReservedSms = 2;
  // The tests check the widths the bound asks for, from a quiet start;
  // QuietDeviceGivesBeEveryWorker checks the production default.
  O.FullWidthWhenQuiet = false;
  // Nor do they expect originals from a quiet start;
  // QuietDeviceRunsOneWaveAsTheOriginal checks the default.
  O.OriginalForOneWaveWhenQuiet = false;
  // One block per claim: the timings count blocks held; the
  // ClaimsOfSeveralBlocks tests check the default.
  O.ClaimInterval = 0us;
  return O;
}

inline Work work(std::string Name, PriorityClass Class, uint64_t Blocks,
                 uint32_t Threads, Nanos Block, uint32_t Queue = 0) {
  Work W;
  W.Kernel.Name = std::move(Name);
  W.Kernel.Blocks = Blocks;
  W.Kernel.ThreadsPerBlock = Threads;
  W.Kernel.HasPtb = true;
  W.Kernel.HasSlice = true;
  W.Class = Class;
  W.Queue = Queue;
  W.Payload = SimKernel{Block};
  return W;
}

inline Work be(uint64_t Blocks, Nanos Block, uint32_t Queue = 0,
               std::string Name = "train") {
  return work(std::move(Name), PriorityClass::BestEffort, Blocks, 256, Block,
              Queue);
}

/// 64 blocks of 1024 threads: 32 SMs' worth, more than the device has.
inline Work heavyLc(Nanos Block = 30us) {
  return work("infer_heavy", PriorityClass::LatencyCritical, 64, 1024, Block);
}

/// 16 blocks of 256 threads: 2 SMs' worth.
inline Work lightLc(Nanos Block = 500us) {
  return work("infer_light", PriorityClass::LatencyCritical, 16, 256, Block);
}

inline void expectExactlyOnce(const SimRecord &R) {
  ASSERT_FALSE(R.RunCount.empty());
  for (size_t V = 0; V < R.RunCount.size(); ++V)
    ASSERT_EQ(R.RunCount[V], 1u) << "virtual block " << V;
}

inline Nanos queueingDelay(const SimRecord &R) {
  EXPECT_TRUE(R.FirstBlockAt.has_value());
  return R.FirstBlockAt.value_or(Nanos::max()) - R.IssuedAt;
}

/// Submits \p Count launches of 640 10-us blocks to BE queue 1, each
/// issued at once (Work::IssueAtOnce); returns their ids.
inline std::vector<uint64_t> submitIssuedAtOnce(Scheduler &S, int Count) {
  std::vector<uint64_t> Ids;
  for (int I = 0; I < Count; ++I) {
    Work W = be(640, 10us, 1);
    W.IssueAtOnce = true;
    Ids.push_back(S.submit(std::move(W)));
  }
  return Ids;
}

/// Runs \p S over \p Sim until work \p Id is done; returns when it was.
inline Nanos runUntilDone(SimulatedExecutor &Sim, Scheduler &S, uint64_t Id) {
  while (!S.info(Id).DoneAt && Sim.step())
    S.poll();
  EXPECT_TRUE(S.info(Id).DoneAt) << "work " << Id << " never finished";
  return S.info(Id).DoneAt.value_or(Sim.clock().now());
}

} // namespace baton::sched::test

#endif // BATON_TEST_UNIT_RUNTIME_SIMTESTSUPPORT_H
