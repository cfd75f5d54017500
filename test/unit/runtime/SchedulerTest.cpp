//===- SchedulerTest.cpp - The scheduler on the simulated device ----------===//
//
// Every test drives Scheduler over SimulatedExecutor on a virtual clock, so
// runs are deterministic. The device: 8 SMs of 2048 threads; BE kernels of
// 256-thread blocks fit 8 per SM (64 workers fill it).
//
//===----------------------------------------------------------------------===//

#include "SchedulerPolicy.h"
#include "SimTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

using namespace baton::sched;
using namespace std::chrono_literals;

namespace {

using namespace baton::sched::test;

SchedulerOptions options() { return simOptions(); }

/// Checks that each of \p Ids ran every virtual block once; returns how
/// often they were relaunched (resumed) in all.
size_t relaunchesOfExactlyOnce(const SimulatedExecutor &Sim,
                               const std::vector<uint64_t> &Ids) {
  size_t Relaunches = 0;
  for (uint64_t Id : Ids) {
    expectExactlyOnce(Sim.record(Id));
    Relaunches += Sim.record(Id).Widths.size() - 1;
  }
  return Relaunches;
}

/// Submits \p Blocks blocks of \p Block each of kernel \p Name to BE queue
/// 1, issued at once (Work::IssueAtOnce), as the launch router submits.
uint64_t issuedAtOnce(Scheduler &S, uint64_t Blocks, Nanos Block,
                      const char *Name) {
  Work W = be(Blocks, Block, 1, Name);
  W.IssueAtOnce = true;
  return S.submit(std::move(W));
}

struct SchedulerSimTest : ::testing::Test {
  SimulatedExecutor Sim{smallDevice()};
  Scheduler S{Sim, options()};

  /// Runs until work \p Id is done; returns when it was.
  Nanos runUntilDone(uint64_t Id) { return test::runUntilDone(Sim, S, Id); }
};

TEST_F(SchedulerSimTest, BeRunsAsPtbOnTheWholeDevice) {
  uint64_t Be = S.submit(be(1000, 10us));
  simulateUntil(Sim, S, 50us);
  EXPECT_EQ(S.info(Be).LaunchForm, Form::Ptb);
  EXPECT_EQ(S.info(Be).Width, 64u);
  EXPECT_EQ(Sim.resident(Be), 64u);
  simulateToEnd(Sim, S);
  EXPECT_TRUE(S.idle());
  EXPECT_EQ(S.info(Be).Launches, 1u);
  expectExactlyOnce(Sim.record(Be));
}

TEST_F(SchedulerSimTest, HeavyLcPausesBeAndBeResumesAfter) {
  uint64_t Be = S.submit(be(4000, 10us));
  simulateUntil(Sim, S, 200us);
  uint64_t Lc = S.submit(heavyLc());
  EXPECT_EQ(S.info(Lc).HowShared, Sharing::Time);
  EXPECT_EQ(S.info(Be).State, WorkState::Pausing);
  // Signal (7 us) plus the block each worker holds (10 us).
  simulateUntil(Sim, S, 200us + 18us);
  EXPECT_EQ(S.info(Be).State, WorkState::Paused);
  EXPECT_EQ(Sim.resident(Be), 0u);
  EXPECT_EQ(Sim.record(Be).Pauses, 1u);

  runUntilDone(Lc);
  EXPECT_EQ(S.info(Be).State, WorkState::Running);
  EXPECT_EQ(S.info(Be).Launches, 2u);
  EXPECT_EQ(Sim.record(Be).Widths, (std::vector<uint32_t>{64, 64}));
  simulateToEnd(Sim, S);
  expectExactlyOnce(Sim.record(Be));
  expectExactlyOnce(Sim.record(Lc));
  EXPECT_LE(queueingDelay(Sim.record(Lc)), 100us);
}

TEST_F(SchedulerSimTest, LightLcShrinksBeAndBeGrowsAfter) {
  // Run the LC kernel once on its own, so its 500 us blocks are known.
  uint64_t Warm = S.submit(lightLc());
  simulateToEnd(Sim, S);
  EXPECT_EQ(S.blockDuration("infer_light"), 500us);
  EXPECT_EQ(S.info(Warm).HowShared, Sharing::Time); // 10 us guessed: short

  uint64_t Be = S.submit(be(20000, 10us));
  simulateUntil(Sim, S, Sim.clock().now() + 100us);
  uint64_t Lc = S.submit(lightLc());
  EXPECT_EQ(S.info(Lc).HowShared, Sharing::Space);
  simulateUntil(Sim, S, Sim.clock().now() + 100us);
  // BE runs on the 6 SMs the LC kernel does not need.
  EXPECT_EQ(S.info(Be).State, WorkState::Running);
  EXPECT_EQ(S.info(Be).Width, 48u);
  EXPECT_EQ(Sim.resident(Be), 48u);
  EXPECT_EQ(Sim.resident(Lc), 16u);

  simulateUntil(Sim, S, runUntilDone(Lc) + 100us);
  EXPECT_EQ(S.info(Be).Width, 64u);
  EXPECT_EQ(Sim.record(Be).Widths, (std::vector<uint32_t>{64, 48, 64}));
  EXPECT_LE(queueingDelay(Sim.record(Lc)), 100us);
  simulateToEnd(Sim, S);
  expectExactlyOnce(Sim.record(Be));
}

TEST_F(SchedulerSimTest, BeQueueStaysFifoAcrossPauses) {
  uint64_t A = S.submit(be(800, 10us, 1));
  uint64_t B = S.submit(be(800, 10us, 1));
  uint64_t C = S.submit(be(800, 10us, 1));
  uint64_t Other = S.submit(be(800, 10us, 2)); // another queue
  EXPECT_EQ(S.info(B).State, WorkState::Queued);
  simulateUntil(Sim, S, 50us);
  S.submit(heavyLc());
  simulateUntil(Sim, S, 400us);
  S.submit(heavyLc());
  simulateToEnd(Sim, S);

  EXPECT_GE(Sim.record(A).Pauses, 1u);
  EXPECT_GE(Sim.record(B).IssuedAt, *S.info(A).DoneAt);
  EXPECT_GE(Sim.record(C).IssuedAt, *S.info(B).DoneAt);
  // Queues do not wait for each other.
  EXPECT_LT(Sim.record(Other).IssuedAt, *S.info(A).DoneAt);
  for (uint64_t Id : {A, B, C, Other})
    expectExactlyOnce(Sim.record(Id));
}

TEST_F(SchedulerSimTest, IssueAtOnceKeepsStreamOrderWithoutRunningEarly) {
  // Work on a client's stream: each launch is issued when submitted, so the
  // stream sees it in order, but blocks run only once it is the head.
  Work First = be(800, 10us, 1), Second = be(800, 10us, 1);
  First.IssueAtOnce = Second.IssueAtOnce = true;
  uint64_t A = S.submit(std::move(First));
  uint64_t B = S.submit(std::move(Second));
  EXPECT_EQ(S.info(A).State, WorkState::Running);
  // Behind a head that runs unhindered, B is issued running, behind A: it
  // waits for A on the device, not for the host, and needs no resume.
  EXPECT_EQ(S.info(B).State, WorkState::Running);
  EXPECT_EQ(S.info(B).Launches, 1u);
  EXPECT_EQ(Sim.record(B).IssuedAt, Sim.clock().now());
  simulateUntil(Sim, S, 50us);
  EXPECT_EQ(Sim.resident(B), 0u);

  // Issued while LC work runs: it waits paused, and runs after. B, which
  // had not started, yields too: it starts after A, sees the flag and
  // leaves, and is resumed once the LC work is done.
  uint64_t Lc = S.submit(heavyLc());
  Work Third = be(800, 10us, 2);
  Third.IssueAtOnce = true;
  uint64_t C = S.submit(std::move(Third));
  EXPECT_EQ(S.info(C).State, WorkState::Paused);
  runUntilDone(Lc);
  simulateToEnd(Sim, S);

  EXPECT_GE(*Sim.record(B).FirstBlockAt, *S.info(A).DoneAt);
  EXPECT_GE(*Sim.record(B).FirstBlockAt, *S.info(Lc).DoneAt);
  EXPECT_GE(*Sim.record(C).FirstBlockAt, *S.info(Lc).DoneAt);
  // The issue behind A, and the resume after the pause.
  EXPECT_EQ(S.info(B).Launches, 2u);
  for (uint64_t Id : {A, B, C})
    expectExactlyOnce(Sim.record(Id));
}

TEST_F(SchedulerSimTest, LaunchBehindARunningHeadStartsWhenItCompletes) {
  // Five launches on one client stream, no LC work: each starts on the
  // device the moment the one before it completes (the simulated device
  // starts queued work with no latency here), so the queue has no gaps.
  std::vector<uint64_t> Ids = submitIssuedAtOnce(S, 5);
  EXPECT_EQ(S.info(Ids[1]).State, WorkState::Running);
  EXPECT_EQ(S.info(Ids[2]).State, WorkState::Paused); // one ahead, by default
  simulateToEnd(Sim, S);
  for (size_t I = 1; I < Ids.size(); ++I) {
    EXPECT_EQ(*Sim.record(Ids[I]).FirstBlockAt, *S.info(Ids[I - 1]).DoneAt);
    expectExactlyOnce(Sim.record(Ids[I]));
  }
  // The wait for the launch ahead is not taken for the kernel's blocks.
  EXPECT_EQ(S.blockDuration("train"), 10us);
  EXPECT_EQ(S.pauses(), 0u);
}

TEST(SchedulerSim, LaunchesAheadSetsHowManyFollowTheHead) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.LaunchesAhead = 3;
  Scheduler S{Sim, O};
  std::vector<uint64_t> Ids;
  for (int I = 0; I < 5; ++I) {
    Work W = be(640, 10us, 1);
    W.IssueAtOnce = true;
    Ids.push_back(S.submit(std::move(W)));
  }
  for (int I = 1; I <= 3; ++I)
    EXPECT_EQ(S.info(Ids[I]).State, WorkState::Running);
  EXPECT_EQ(S.info(Ids[4]).State, WorkState::Paused);
  // LC work arrives: the head and all three behind it yield; those that had
  // not started report Paused only once they have (after the head).
  uint64_t Lc = S.beginExternal();
  simulateUntil(Sim, S, 100us);
  EXPECT_EQ(S.pauses(), 4u);
  S.endExternal(Lc);
  simulateToEnd(Sim, S);
  for (size_t I = 1; I < Ids.size(); ++I)
    EXPECT_GE(*Sim.record(Ids[I]).FirstBlockAt, *S.info(Ids[I - 1]).DoneAt);
  for (uint64_t Id : Ids)
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, TheDeviceCapsTheLaunchesThatFollowTheHead) {
  // Each launch behind the head holds a stream waiting on the device: the
  // windows never pass what the device can hold (DeviceFacts).
  DeviceFacts D = smallDevice();
  D.MaxLaunchesAhead = 2;
  SimulatedExecutor Sim{D};
  SchedulerOptions O = options();
  O.LaunchesAheadWhenQuiet = 32;
  Scheduler S{Sim, O};
  std::vector<uint64_t> Ids = submitIssuedAtOnce(S, 6);
  EXPECT_EQ(S.info(Ids[1]).State, WorkState::Running);
  EXPECT_EQ(S.info(Ids[2]).State, WorkState::Running);
  EXPECT_EQ(S.info(Ids[3]).State, WorkState::Paused);
  simulateToEnd(Sim, S);
  for (uint64_t Id : Ids)
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, MoreLaunchesFollowTheHeadWhileNoLcWorkIsSeen) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.LaunchesAheadWhenQuiet = 3;
  O.QuietAfter = 10ms;
  Scheduler S{Sim, O};
  std::vector<uint64_t> All;
  auto submit = [&](int Count) { // 100 us each on the whole device
    std::vector<uint64_t> Ids = submitIssuedAtOnce(S, Count);
    All.insert(All.end(), Ids.begin(), Ids.end());
    return Ids;
  };

  // No LC work seen yet: three launches follow the head.
  std::vector<uint64_t> First = submit(5);
  for (int I = 1; I <= 3; ++I)
    EXPECT_EQ(S.info(First[I]).State, WorkState::Running);
  EXPECT_EQ(S.info(First[4]).State, WorkState::Paused);

  // LC work narrows the window to one, and every launch resumed while it
  // was wider yields too, not only those within it.
  simulateUntil(Sim, S, 50us);
  uint64_t Lc = S.beginExternal();
  EXPECT_EQ(S.pauses(), 4u);
  simulateUntil(Sim, S, 100us);
  S.endExternal(Lc);
  simulateToEnd(Sim, S);

  // Within QuietAfter of the LC work, one follows the head.
  ASSERT_LT(Sim.clock().now(), 100us + O.QuietAfter);
  std::vector<uint64_t> Second = submit(3);
  EXPECT_EQ(S.info(Second[1]).State, WorkState::Running);
  EXPECT_EQ(S.info(Second[2]).State, WorkState::Paused);
  simulateToEnd(Sim, S);

  // Quiet again: three.
  Sim.advanceTo(100us + O.QuietAfter);
  std::vector<uint64_t> Third = submit(5);
  for (int I = 1; I <= 3; ++I)
    EXPECT_EQ(S.info(Third[I]).State, WorkState::Running);
  EXPECT_EQ(S.info(Third[4]).State, WorkState::Paused);
  simulateToEnd(Sim, S);

  EXPECT_EQ(S.pauses(), 4u);
  for (size_t I = 1; I < All.size(); ++I)
    EXPECT_GE(*Sim.record(All[I]).FirstBlockAt, *S.info(All[I - 1]).DoneAt);
  for (uint64_t Id : All)
    expectExactlyOnce(Sim.record(Id));
}

TEST_F(SchedulerSimTest, ExternalLcWorkPausesOrShrinksBe) {
  // LC work the client launches itself (cuBLAS, PyTorch): all SMs means
  // time sharing, fewer means BE keeps the rest.
  uint64_t Be = S.submit(be(20000, 10us));
  simulateUntil(Sim, S, 100us);
  uint64_t Whole = S.beginExternal();
  EXPECT_EQ(S.info(Whole).HowShared, Sharing::Time);
  simulateUntil(Sim, S, 200us);
  EXPECT_EQ(S.info(Be).State, WorkState::Paused);
  EXPECT_FALSE(S.idle());
  S.endExternal(Whole);
  simulateUntil(Sim, S, 300us);
  EXPECT_EQ(S.info(Be).State, WorkState::Running);
  EXPECT_EQ(Sim.resident(Be), 64u);

  uint64_t Part = S.beginExternal(2);
  EXPECT_EQ(S.info(Part).HowShared, Sharing::Space);
  simulateUntil(Sim, S, 400us);
  EXPECT_EQ(S.info(Be).State, WorkState::Running);
  EXPECT_EQ(Sim.resident(Be), 48u); // 6 of 8 SMs
  S.endExternal(Part);
  EXPECT_THROW(S.endExternal(Part), std::invalid_argument);
  simulateToEnd(Sim, S);
  EXPECT_TRUE(S.idle());
  EXPECT_EQ(Sim.record(Be).Widths, (std::vector<uint32_t>{64, 64, 48, 64}));
  expectExactlyOnce(Sim.record(Be));
}

TEST(SchedulerSim, ForgetDoneWorkDropsFinishedEntries) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.ForgetDoneWork = true;
  Scheduler S{Sim, O};
  Work First = be(800, 10us, 1), Second = be(800, 10us, 1);
  First.IssueAtOnce = Second.IssueAtOnce = true;
  uint64_t A = S.submit(std::move(First));
  uint64_t B = S.submit(std::move(Second));
  simulateUntil(Sim, S, 50us);
  uint64_t Lc = S.beginExternal();
  simulateUntil(Sim, S, 100us);
  EXPECT_EQ(S.info(A).State, WorkState::Paused); // still known: not Done
  S.endExternal(Lc);
  EXPECT_THROW(S.info(Lc), std::out_of_range);
  simulateToEnd(Sim, S);
  EXPECT_TRUE(S.idle());
  EXPECT_THROW(S.info(A), std::out_of_range);
  EXPECT_THROW(S.info(B), std::out_of_range);
  // B was issued running behind A, paused with it for the external work,
  // and resumed after it with A: two resumes, all blocks exactly once.
  EXPECT_EQ(S.resumes(), 2u);
  expectExactlyOnce(Sim.record(A));
  expectExactlyOnce(Sim.record(B));
}

/// The simulated device, except that launching or resuming work of one
/// kernel fails, as a faulting kernel makes the runtime throw.
class FailingExecutor : public Executor {
public:
  FailingExecutor(SimulatedExecutor &Sim, std::string Failing)
      : Sim(Sim), Failing(std::move(Failing)) {}
  const DeviceFacts &facts() const override { return Sim.facts(); }
  const Clock &clock() const override { return Sim.clock(); }
  void launch(const LaunchRequest &R) override {
    if (R.Shape->Name == Failing && !R.StartPaused)
      throw std::runtime_error("launch failed");
    Sim.launch(R);
    Names[R.Id] = R.Shape->Name;
  }
  void requestPause(uint64_t Id) override { Sim.requestPause(Id); }
  void resume(uint64_t Id, uint32_t Width, uint64_t After) override {
    if (Names[Id] == Failing)
      throw std::runtime_error("resume failed");
    Sim.resume(Id, Width, After);
  }
  void resumeAsOriginal(uint64_t Id, uint64_t After) override {
    if (Names[Id] == Failing)
      throw std::runtime_error("resume failed");
    Sim.resumeAsOriginal(Id, After);
  }
  void vacate(uint64_t Id, uint32_t Sms) override { Sim.vacate(Id, Sms); }
  std::vector<Completion> poll() override { return Sim.poll(); }

private:
  SimulatedExecutor &Sim;
  std::string Failing;
  std::map<uint64_t, std::string> Names;
};

TEST(SchedulerSim, WorkWhoseLaunchFailsIsGivenUpAndTheQueueGoesOn) {
  SimulatedExecutor Sim{smallDevice()};
  FailingExecutor Exec{Sim, "broken"};
  Scheduler S{Exec, options()};
  // Head fails at launch: submit() reports it, the queue behind goes on.
  Work Broken = be(800, 10us, 1, "broken");
  Broken.IssueAtOnce = true;
  EXPECT_THROW(S.submit(std::move(Broken)), std::runtime_error);
  Work Next = be(800, 10us, 1);
  Next.IssueAtOnce = true;
  uint64_t A = S.submit(std::move(Next));
  // Resumed behind the running A as soon as it is issued, and that resume
  // fails: submit() reports it, and the queue goes on without it.
  Work Chained = be(800, 10us, 1, "broken");
  Chained.IssueAtOnce = true;
  EXPECT_THROW(S.submit(std::move(Chained)), std::runtime_error);
  // Issued paused while external LC work runs, fails when resumed after
  // it: the next poll() reports it, and C still runs.
  uint64_t Lc = S.beginExternal();
  Work Later = be(800, 10us, 1, "broken");
  Later.IssueAtOnce = true;
  uint64_t B = S.submit(std::move(Later));
  Work Last = be(800, 10us, 1);
  Last.IssueAtOnce = true;
  uint64_t C = S.submit(std::move(Last));
  EXPECT_EQ(S.info(B).State, WorkState::Paused);
  simulateUntil(Sim, S, Sim.clock().now() + 100us);
  S.endExternal(Lc);
  EXPECT_THROW(simulateToEnd(Sim, S), std::runtime_error);
  EXPECT_EQ(S.info(B).State, WorkState::Done);
  simulateToEnd(Sim, S);
  EXPECT_TRUE(S.idle());
  expectExactlyOnce(Sim.record(A));
  expectExactlyOnce(Sim.record(C));
  EXPECT_THROW(S.endExternal(A), std::invalid_argument); // not external
}

TEST_F(SchedulerSimTest, MeasuredBlocksNarrowTheNextBeLaunch) {
  // 300 us blocks, guessed at 10 us: the first launch fills the device.
  uint64_t First = S.submit(be(640, 300us, 0, "long"));
  uint64_t Second = S.submit(be(640, 300us, 0, "long"));
  simulateUntil(Sim, S, 10us);
  EXPECT_EQ(S.info(First).Width, 64u);
  runUntilDone(First);
  EXPECT_EQ(S.blockDuration("long"), 300us);
  // 7 + 300 us exceed the 100 us bound: keep 2 SMs free for LC work, and
  // run prompt SMs on the rest (2 workers of 8 warps each).
  EXPECT_EQ(S.info(Second).Width, 12u);

  simulateUntil(Sim, S, Sim.clock().now() + 150us);
  uint64_t Lc = S.submit(lightLc(20us));
  simulateToEnd(Sim, S);
  // The LC kernel fits the reserve: it does not wait for 300 us blocks.
  EXPECT_LE(queueingDelay(Sim.record(Lc)), 100us);
  expectExactlyOnce(Sim.record(Second));
}

TEST(SchedulerSim, WidthHoldsWhenBlocksSlowDownWithOccupancy) {
  // Blocks of 20 us, 10 us longer for each block beside them on their SM
  // (spread as the hardware spreads them): 90 us at the full 8 workers per
  // SM, 30 us at the prompt 2. A full SM would drain in 7 + 90 + 90 us, over
  // the 100 us bound; a prompt one in 7 + 30 us. With one estimate for both,
  // each prompt launch pulled it down until a full one looked in time,
  // which then measured 90 us again: the width swung between 16 and 64
  // (the H100's colocation MLP at a 300 us bound, docs/benchmarks.md). Each
  // occupancy keeps its own estimate, so after the first launch (full, from
  // the 10 us guess) every launch stays prompt.
  SimulatedExecutor Sim{smallDevice(), Nanos(0), Placement::Spread};
  Scheduler S{Sim, options()};
  auto Submit = [&] {
    Work W = be(640, 20us, 0, "crowded");
    W.Payload = SimKernel{20us, 10us};
    return S.submit(std::move(W));
  };
  std::vector<uint64_t> Ids;
  std::vector<uint32_t> Widths;
  for (int I = 0; I < 24; ++I) {
    Ids.push_back(Submit());
    simulateUntil(Sim, S, Sim.clock().now() + 1us);
    Widths.push_back(S.info(Ids.back()).Width);
    runUntilDone(Sim, S, Ids.back());
  }
  EXPECT_EQ(Widths.front(), 64u);
  EXPECT_EQ(S.blockDuration("crowded"), 30us);
  for (size_t I = 1; I < Widths.size(); ++I)
    EXPECT_EQ(Widths[I], 16u) << "launch " << I;
  // LC work that needs every SM waits for one prompt block.
  Ids.push_back(Submit());
  simulateUntil(Sim, S, Sim.clock().now() + 200us);
  uint64_t Lc = S.submit(heavyLc());
  simulateToEnd(Sim, S);
  EXPECT_LE(queueingDelay(Sim.record(Lc)), 7us + 30us);
  for (uint64_t Id : Ids)
    expectExactlyOnce(Sim.record(Id));
}

namespace {

/// Runs launches of \p Kernel (640 blocks of 256 threads) one at a time,
/// after \p Quiet launches with no LC work, then each paused \p After it is
/// issued (a launch takes 20 us to arrive) by LC work that needs every SM.
/// Returns the workers per SM each paused launch ran and how long each LC
/// kernel waited for SMs.
std::pair<std::vector<uint32_t>, std::vector<Nanos>>
pauseEachLaunch(SimKernel Kernel, int Quiet, int Paused, Nanos After,
                bool PromptFromPauses = true) {
  SimulatedExecutor Sim{smallDevice(), Nanos(0), Placement::Spread};
  SchedulerOptions O = simOptions();
  O.PromptFromPauses = PromptFromPauses;
  Scheduler S{Sim, O};
  std::vector<uint32_t> PerSm;
  std::vector<Nanos> Waits;
  for (int I = 0; I < Quiet + Paused; ++I) {
    Work W = be(640, Kernel.BlockDuration, 0, "stalls");
    W.Payload = Kernel;
    uint64_t Id = S.submit(std::move(W));
    simulateUntil(Sim, S, Sim.clock().now() + After);
    if (I >= Quiet) {
      PerSm.push_back(S.info(Id).Width / smallDevice().Multiprocessors);
      uint64_t Lc = S.submit(heavyLc());
      runUntilDone(Sim, S, Lc);
      Waits.push_back(queueingDelay(Sim.record(Lc)));
    }
    runUntilDone(Sim, S, Id);
    expectExactlyOnce(Sim.record(Id));
  }
  return {PerSm, Waits};
}

/// Launches held to 2 workers per SM, then SamplesToJudge at each of
/// 3 .. \p Last, then \p Then, \p Count in all; the first launch's pause is
/// one more at 2 (it was issued while the device was quiet, untimed, and
/// says nothing: QuietTimingInterval).
std::vector<uint32_t> climb(uint32_t Last, uint32_t Then, size_t Count) {
  std::vector<uint32_t> PerSm(PromptModel::SamplesToJudge + 1, 2);
  for (uint32_t K = 3; K <= Last; ++K)
    PerSm.insert(PerSm.end(), PromptModel::SamplesToJudge, K);
  PerSm.resize(Count, Then);
  return PerSm;
}

} // namespace

TEST(SchedulerSim, PausesAsShortAsTheBaseLetLaunchesHoldMoreWorkersPerSm) {
  // Blocks of 50 us at any occupancy. The device's limits hold them to 2
  // workers per SM: a fuller SM's drain, modelled with a second block, would
  // miss the 100 us bound. This kernel's pauses show no second block: each
  // occupancy's drains are the base's, so once SamplesToJudge pauses judged
  // one, launches hold one worker per SM more, up to twice the device's
  // limits (DeviceFacts::PromptClimbTimesLimits).
  auto [PerSm, Waits] = pauseEachLaunch(SimKernel{50us}, 2, 70, 40us);
  EXPECT_EQ(PerSm, climb(4, 4, 70));
  for (Nanos Wait : Waits)
    EXPECT_LE(Wait, 100us);
  // Off, the device's limits hold every launch.
  auto [Off, OffWaits] = pauseEachLaunch(SimKernel{50us}, 2, 30, 40us, false);
  EXPECT_EQ(Off, std::vector<uint32_t>(30, 2));
  // Pauses asked before a launch's blocks began (it takes 20 us to
  // arrive) measure no drain the LC work waited for: no climb.
  auto [Early, EarlyWaits] = pauseEachLaunch(SimKernel{50us}, 2, 30, 2us);
  EXPECT_EQ(Early, std::vector<uint32_t>(30, 2));
}

TEST(SchedulerSim, StarvedClaimsEndTheClimb) {
  // The blocks of the test above, but claims starve on an SM of more than
  // 4 blocks: a paused worker there starts one more block. (Up to 4 workers
  // of 256 threads, an LC block of 1,024 fits beside them, and it counts
  // too.) At 4 workers per SM each pause takes a second block, so 4 is
  // judged grown and the launches after it go back to 3, where the test above
  // stays at 4. (The LC block fits beside those 4 workers and waits for
  // none; a larger one would wait for the second block.)
  SimKernel Starving{50us};
  Starving.ClaimsStarveAbove = 4;
  auto [PerSm, Waits] = pauseEachLaunch(Starving, 2, 60, 40us);
  EXPECT_EQ(PerSm, climb(4, 3, 60));
  for (size_t I = 0; I < Waits.size(); ++I)
    EXPECT_LE(Waits[I], 50us) << "LC kernel " << I;
}

TEST(SchedulerSim, LongerDrainsEndTheClimb) {
  // Blocks 10 us longer for each neighbour: 30 us at 2 workers per SM, 40
  // at 3. Paused as their blocks begin, launches at 3 drain a third longer
  // than at 2, which the LC work waits for: 3 is judged grown, and the
  // launches after it go back to 2, though 3's blocks keep the bound.
  auto [PerSm, Waits] = pauseEachLaunch(SimKernel{20us, 10us}, 2, 40, 22us);
  EXPECT_EQ(PerSm, climb(3, 2, 40));
}

TEST_F(SchedulerSimTest, LongBlocksKeepEverySmAfterLcWorkOfTheWholeDevice) {
  // An LC kernel of more than one wave needs every SM, so the reserve for
  // later BE launches of blocks too long for the bound is the whole device.
  // Such a launch once ran 2 workers on one SM from then on; it runs prompt
  // SMs (2 workers each) on all 8, and still yields to the next LC kernel.
  uint64_t First = S.submit(be(640, 300us, 0, "long"));
  runUntilDone(First);
  runUntilDone(S.submit(heavyLc()));
  uint64_t Second = S.submit(be(640, 300us, 0, "long"));
  simulateUntil(Sim, S, Sim.clock().now() + 50us);
  EXPECT_EQ(S.info(Second).Width, 16u);
  EXPECT_EQ(Sim.resident(Second), 16u);
  uint64_t Lc = S.submit(heavyLc());
  runUntilDone(Lc);
  // It waited for the one block each worker held, no more.
  EXPECT_LE(queueingDelay(Sim.record(Lc)), 7us + 300us);
  simulateToEnd(Sim, S);
  for (uint64_t Id : {First, Second})
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, QuietDeviceGivesBeEveryWorker) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.FullWidthWhenQuiet = true; // QuietAfter: 100 ms
  Scheduler S{Sim, O};
  auto RunUntilDone = [&](uint64_t Id) {
    while (!S.info(Id).DoneAt && Sim.step())
      S.poll();
  };
  // 300 us blocks miss the bound at any width; with no LC work about, the
  // second launch still takes every worker.
  uint64_t First = S.submit(be(640, 300us, 0, "long"));
  RunUntilDone(First);
  uint64_t Second = S.submit(be(640, 300us, 0, "long"));
  simulateUntil(Sim, S, Sim.clock().now() + 10us);
  EXPECT_EQ(S.info(Second).Width, 64u);
  // LC work ends the quiet spell: the launch yields, and is resumed at the
  // bound's width (2 SMs reserved, prompt SMs on the rest), as is the next.
  uint64_t Lc = S.submit(lightLc(20us));
  RunUntilDone(Lc);
  // The launch had not reached the device when it was paused; its workers
  // still run their first shares (one block each) before it yields.
  while (S.info(Second).Launches < 2 && Sim.step())
    S.poll();
  EXPECT_EQ(S.info(Second).Width, 12u);
  RunUntilDone(Second);
  uint64_t Third = S.submit(be(640, 300us, 0, "long"));
  simulateUntil(Sim, S, Sim.clock().now() + 10us);
  EXPECT_EQ(S.info(Third).Width, 12u);
  // Quiet again after QuietAfter without LC work.
  RunUntilDone(Third);
  simulateUntil(Sim, S, Sim.clock().now() + 150ms);
  uint64_t Fourth = S.submit(be(640, 300us, 0, "long"));
  simulateUntil(Sim, S, Sim.clock().now() + 10us);
  EXPECT_EQ(S.info(Fourth).Width, 64u);
  simulateToEnd(Sim, S);
  for (uint64_t Id : {First, Second, Third, Fourth})
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, QuietDeviceRunsOneWaveAsTheOriginal) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.FullWidthWhenQuiet = true;
  O.OriginalForOneWaveWhenQuiet = true; // QuietAfter: 100 ms
  Scheduler S{Sim, O};
  auto issued = [&](uint64_t Blocks) {
    Work W = be(Blocks, 10us, 1, "tile");
    W.IssueAtOnce = true;
    return S.submit(std::move(W));
  };
  // Quiet: 48 blocks that fit at once, as a head and as the launch that
  // follows it, run as originals; 640 blocks take PTB workers.
  uint64_t Head = issued(48);
  uint64_t Follower = issued(48);
  EXPECT_EQ(S.info(Head).LaunchForm, Form::Original);
  EXPECT_EQ(S.info(Follower).LaunchForm, Form::Original);
  EXPECT_EQ(S.info(Follower).State, WorkState::Running);
  uint64_t Many = issued(640);
  EXPECT_EQ(S.info(Many).LaunchForm, Form::Ptb);
  // Beyond the window of launches ahead, a launch is issued paused, and a
  // paused launch must be PTB to be stopped before it starts. Resumed while
  // still quiet, having run nothing, it runs as the original.
  uint64_t Waiting = issued(48);
  EXPECT_EQ(S.info(Waiting).State, WorkState::Paused);
  EXPECT_EQ(S.info(Waiting).LaunchForm, Form::Ptb);
  simulateToEnd(Sim, S);
  EXPECT_EQ(S.info(Waiting).LaunchForm, Form::Original);
  EXPECT_EQ(Sim.record(Waiting).LaunchForm, Form::Original);
  EXPECT_EQ(S.originals(), 3u); // Head, Follower and Waiting
  // LC work ends the quiet spell: one wave (a worker for each block, as
  // the bound allows) is PTB again, so that the next LC work can stop it
  // before it starts.
  uint64_t Lc = S.submit(lightLc(20us));
  runUntilDone(Sim, S, Lc);
  uint64_t After = issued(48);
  EXPECT_EQ(S.info(After).LaunchForm, Form::Ptb);
  EXPECT_EQ(S.info(After).Width, 48u);
  // Nor is one issued paused now turned into the original when resumed.
  issued(640);
  uint64_t AfterPaused = issued(48);
  EXPECT_EQ(S.info(AfterPaused).State, WorkState::Paused);
  simulateToEnd(Sim, S);
  EXPECT_EQ(S.info(AfterPaused).LaunchForm, Form::Ptb);
  EXPECT_EQ(S.originals(), 3u);
  for (uint64_t Id : {Head, Follower, Many, Waiting, After, AfterPaused})
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, QuietDeviceRunsShortLaunchesAsOriginalsWithinABudget) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.OriginalsWhenQuietUpTo = 250us;
  Scheduler S{Sim, O};
  auto issued = [&](uint64_t Blocks, const char *Name) {
    Work W = be(Blocks, 10us, 1, Name);
    W.IssueAtOnce = true;
    return S.submit(std::move(W));
  };
  // Unmeasured, a block counts as 10 us: 1280 blocks, 64 a wave, are 200 us
  // as the original. A second such launch behind the first would put 400 us
  // of originals on the device: it runs, but as PTB.
  uint64_t Head = issued(1280, "medium");
  uint64_t Over = issued(1280, "medium");
  EXPECT_EQ(S.info(Head).LaunchForm, Form::Original);
  EXPECT_EQ(S.info(Over).State, WorkState::Running);
  EXPECT_EQ(S.info(Over).LaunchForm, Form::Ptb);
  simulateToEnd(Sim, S);
  // Two of 30 us fit together; one of 500 us never fits.
  uint64_t ShortHead = issued(192, "short");
  uint64_t ShortNext = issued(192, "short");
  EXPECT_EQ(S.info(ShortHead).LaunchForm, Form::Original);
  EXPECT_EQ(S.info(ShortNext).LaunchForm, Form::Original);
  simulateToEnd(Sim, S);
  uint64_t Long = issued(3200, "long");
  EXPECT_EQ(S.info(Long).LaunchForm, Form::Ptb);
  // A sliced launch issued paused behind it stays sliced when resumed:
  // only a PTB launch can run its original instead.
  issued(3200, "long");
  Work Sliced = be(192, 10us, 1, "sliced");
  Sliced.Kernel.HasPtb = false;
  Sliced.IssueAtOnce = true;
  uint64_t Slices = S.submit(std::move(Sliced));
  EXPECT_EQ(S.info(Slices).State, WorkState::Paused);
  simulateToEnd(Sim, S);
  EXPECT_EQ(S.info(Slices).LaunchForm, Form::Slices);
  // LC work ends the quiet spell: short launches are PTB again.
  uint64_t Lc = S.submit(lightLc(20us));
  runUntilDone(Sim, S, Lc);
  uint64_t After = issued(192, "short");
  EXPECT_EQ(S.info(After).LaunchForm, Form::Ptb);
  simulateToEnd(Sim, S);
  for (uint64_t Id : {Head, Over, ShortHead, ShortNext, Long, Slices, After})
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, IdleDeviceRunsLaunchesOfShortBlocksAsOriginals) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.OriginalsWhenIdleWithBlocksUpTo = 20us;
  Scheduler S{Sim, O};
  auto issued = [&](Nanos Block, const char *Name) {
    Work W = be(6400, Block, 1, Name);
    W.IssueAtOnce = true;
    return S.submit(std::move(W));
  };
  std::vector<uint64_t> Ids;
  auto formOfNext = [&](Nanos Block, const char *Name) {
    uint64_t Id = issued(Block, Name);
    Ids.push_back(Id);
    Form F = S.info(Id).LaunchForm;
    simulateToEnd(Sim, S);
    return F;
  };
  // A kernel's first launch is PTB, whatever its blocks: nothing measured
  // them yet. Measured at 10 us, its next launches are originals, however
  // long (100 waves here) and however many run in a row.
  EXPECT_EQ(formOfNext(10us, "short"), Form::Ptb);
  uint64_t Head = issued(10us, "short");
  uint64_t Next = issued(10us, "short");
  EXPECT_EQ(S.info(Head).LaunchForm, Form::Original);
  EXPECT_EQ(S.info(Next).LaunchForm, Form::Original);
  Ids.insert(Ids.end(), {Head, Next});
  simulateToEnd(Sim, S);
  // Those issued paused behind the window run as originals when resumed.
  std::vector<uint64_t> Queued;
  for (int I = 0; I < 6; ++I)
    Queued.push_back(issued(10us, "short"));
  EXPECT_EQ(S.info(Queued.back()).State, WorkState::Paused);
  simulateToEnd(Sim, S);
  for (uint64_t Id : Queued)
    EXPECT_EQ(S.info(Id).LaunchForm, Form::Original);
  Ids.insert(Ids.end(), Queued.begin(), Queued.end());
  // Blocks of 40 us stay PTB once measured too.
  EXPECT_EQ(formOfNext(40us, "long"), Form::Ptb);
  EXPECT_EQ(formOfNext(40us, "long"), Form::Ptb);
  // LC work ends the idle spell. Quiet again after 100 ms, the device is
  // not idle before a second has passed.
  uint64_t Lc = S.submit(lightLc(20us));
  Nanos LcDone = runUntilDone(Sim, S, Lc);
  EXPECT_EQ(formOfNext(10us, "short"), Form::Ptb);
  simulateUntil(Sim, S, LcDone + 500ms);
  EXPECT_EQ(formOfNext(10us, "short"), Form::Ptb);
  simulateUntil(Sim, S, LcDone + 1s);
  EXPECT_EQ(formOfNext(10us, "short"), Form::Original);
  // An LC peer in another process keeps the device from being idle, busy
  // or not: its kernels get no priority over ours.
  S.setPeersPresent(true);
  EXPECT_EQ(formOfNext(10us, "short"), Form::Ptb);
  S.setPeersPresent(false);
  EXPECT_EQ(formOfNext(10us, "short"), Form::Original);
  for (uint64_t Id : Ids)
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, QuietDeviceTimesOneLaunchInAnInterval) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.QuietTimingInterval = 4;
  O.PreemptionBound = 1ms; // every launch at one occupancy, LC or not
  Scheduler S{Sim, O};
  std::vector<uint64_t> Ids;
  // One launch of "k" at a time, its blocks as long as \p Block.
  auto timedNext = [&](Nanos Block) {
    uint64_t Id = S.submit(be(640, Block, 1, "k"));
    Ids.push_back(Id);
    simulateToEnd(Sim, S);
    return Sim.record(Id).TimeRuns;
  };
  // Quiet from the start: the first launch is timed, since nothing
  // measured its blocks; then one in four.
  EXPECT_TRUE(timedNext(10us));
  EXPECT_EQ(S.blockDuration("k"), 10us);
  // Untimed runs leave the estimate alone, whatever they took.
  for (int I = 0; I < 3; ++I)
    EXPECT_FALSE(timedNext(40us)) << "launch " << I + 2;
  EXPECT_EQ(S.blockDuration("k"), 10us);
  EXPECT_TRUE(timedNext(40us));
  EXPECT_GT(S.blockDuration("k"), 10us);
  EXPECT_FALSE(timedNext(40us));
  // While LC work is about, and until the device is quiet again, every
  // launch is timed.
  uint64_t Lc = S.submit(lightLc(20us));
  uint64_t During = S.submit(be(640, 40us, 1, "k"));
  Ids.push_back(During);
  Nanos LcDone = runUntilDone(Sim, S, Lc);
  simulateToEnd(Sim, S);
  EXPECT_TRUE(Sim.record(During).TimeRuns);
  EXPECT_TRUE(timedNext(40us));
  simulateUntil(Sim, S, LcDone + O.QuietAfter);
  EXPECT_FALSE(timedNext(40us));
  for (uint64_t Id : Ids)
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, EveryLaunchIsTimedWithAnIntervalOfOne) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.QuietTimingInterval = 1;
  Scheduler S{Sim, O};
  for (int I = 0; I < 4; ++I) {
    uint64_t Id = S.submit(be(640, 10us, 1, "k"));
    simulateToEnd(Sim, S);
    EXPECT_TRUE(Sim.record(Id).TimeRuns) << "launch " << I + 1;
  }
}

TEST(SchedulerSim, IdleOriginalsBeyondTheWindowAreIssuedRunningWithinTheBound) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options(); // LaunchesAhead 1, bound 100 us
  O.OriginalsWhenIdleWithBlocksUpTo = 20us;
  Scheduler S{Sim, O};
  // Measured first: 128 blocks of 10 us take two waves, 20 us, at the
  // original's occupancy.
  std::vector<uint64_t> Ids = {issuedAtOnce(S, 128, 10us, "short")};
  simulateToEnd(Sim, S);
  uint64_t Head = issuedAtOnce(S, 640, 200us, "long");
  Ids.push_back(Head);
  std::vector<uint64_t> Short;
  for (int I = 0; I < 7; ++I)
    Short.push_back(issuedAtOnce(S, 128, 10us, "short"));
  Ids.insert(Ids.end(), Short.begin(), Short.end());
  EXPECT_EQ(S.info(Head).LaunchForm, Form::Ptb);
  // The first follows the head within the window; the next four are issued
  // running beyond it, five originals of 20 us in a row being the bound.
  for (int I = 0; I < 5; ++I) {
    EXPECT_EQ(S.info(Short[I]).LaunchForm, Form::Original) << I;
    EXPECT_EQ(S.info(Short[I]).State, WorkState::Running) << I;
  }
  // The sixth would make 120 us: issued paused, as PTB.
  EXPECT_EQ(S.info(Short[5]).State, WorkState::Paused);
  // The seventh has a launch that can pause right ahead of it: a new run.
  EXPECT_EQ(S.info(Short[6]).LaunchForm, Form::Original);
  EXPECT_EQ(S.info(Short[6]).State, WorkState::Running);
  simulateToEnd(Sim, S);
  // Stream order: each started after the one ahead of it ended.
  for (size_t I = 1; I < Ids.size(); ++I)
    EXPECT_GE(*Sim.record(Ids[I]).FirstBlockAt, *S.info(Ids[I - 1]).DoneAt)
        << "launch " << I;
  for (uint64_t Id : Ids)
    expectExactlyOnce(Sim.record(Id));
  // LC work ends the idle spell: beyond the window, launches wait paused.
  uint64_t Lc = S.submit(lightLc(20us));
  runUntilDone(Sim, S, Lc);
  uint64_t Next = issuedAtOnce(S, 640, 200us, "long");
  uint64_t Follower = issuedAtOnce(S, 128, 10us, "short");
  uint64_t Beyond = issuedAtOnce(S, 128, 10us, "short");
  EXPECT_EQ(S.info(Next).State, WorkState::Running);
  EXPECT_EQ(S.info(Follower).State, WorkState::Running);
  EXPECT_EQ(S.info(Beyond).State, WorkState::Paused);
  simulateToEnd(Sim, S);
  for (uint64_t Id : {Next, Follower, Beyond})
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, AResumeKeepsARunOfIdleOriginalsToTheBound) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options(); // bound 100 us
  O.OriginalsWhenIdleWithBlocksUpTo = 20us;
  O.LaunchesAheadWhenQuiet = 4;
  Scheduler S{Sim, O};
  // 128 blocks of 10 us: two waves, 20 us.
  std::vector<uint64_t> Ids = {issuedAtOnce(S, 128, 10us, "short")};
  simulateToEnd(Sim, S);
  Ids.push_back(issuedAtOnce(S, 640, 200us, "long"));
  std::vector<uint64_t> Short;
  for (int I = 0; I < 7; ++I)
    Short.push_back(issuedAtOnce(S, 128, 10us, "short"));
  Ids.insert(Ids.end(), Short.begin(), Short.end());
  // Four follow the head within the window, the fifth runs beyond it; the
  // sixth would make 120 us and waits paused; the seventh starts a run.
  EXPECT_EQ(S.info(Short[4]).LaunchForm, Form::Original);
  EXPECT_EQ(S.info(Short[5]).State, WorkState::Paused);
  EXPECT_EQ(S.info(Short[6]).LaunchForm, Form::Original);
  simulateToEnd(Sim, S);
  // Resumed within the window while four originals ran ahead of it and one
  // behind, it would have joined them in a run of 120 us: it ran as PTB.
  EXPECT_EQ(S.info(Short[5]).LaunchForm, Form::Ptb);
  for (size_t I = 1; I < Ids.size(); ++I)
    EXPECT_GE(*Sim.record(Ids[I]).FirstBlockAt, *S.info(Ids[I - 1]).DoneAt)
        << "launch " << I;
  for (uint64_t Id : Ids)
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, IdleOriginalsBeyondTheWindowWaitForWorkNotIssuedYet) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.OriginalsWhenIdleWithBlocksUpTo = 20us;
  Scheduler S{Sim, O};
  issuedAtOnce(S, 128, 10us, "short");
  simulateToEnd(Sim, S);
  // Work the client does not issue at once waits in the scheduler, unseen
  // by the stream: a launch behind it is not issued running past it.
  uint64_t Head = S.submit(be(640, 200us, 1, "long"));
  uint64_t Queued = S.submit(be(640, 200us, 1, "long"));
  ASSERT_EQ(S.info(Queued).State, WorkState::Queued);
  uint64_t Behind = issuedAtOnce(S, 128, 10us, "short");
  EXPECT_NE(S.info(Behind).State, WorkState::Running);
  simulateToEnd(Sim, S);
  EXPECT_GE(*Sim.record(Behind).FirstBlockAt, *S.info(Queued).DoneAt);
  for (uint64_t Id : {Head, Queued, Behind})
    expectExactlyOnce(Sim.record(Id));
}

TEST(SchedulerSim, IdleOriginalsNeedBlocksMeasuredAtTheOriginalsOccupancy) {
  // Blocks of 8 us alone, 2 us longer for each neighbour on the SM: 22 us
  // at the original's 8 a SM, over the limit, but under it at the 2 a SM
  // that a launch beside LC work gets under a 20 us bound.
  DeviceFacts D = smallDevice();
  D.PromptClaimWorkersPerSm = 2;
  SimulatedExecutor Sim{D};
  SchedulerOptions O = options();
  O.PreemptionBound = 20us;
  O.FullWidthWhenQuiet = true;
  O.OriginalsWhenIdleWithBlocksUpTo = 20us;
  Scheduler S{Sim, O};
  auto crowded = [&](uint64_t Blocks) {
    Work W = be(Blocks, 8us, 1, "crowded");
    W.Payload = SimKernel{8us, 2us};
    W.IssueAtOnce = true;
    return S.submit(std::move(W));
  };
  uint64_t Lc = S.beginExternal(2);
  uint64_t Narrow = crowded(160);
  runUntilDone(Sim, S, Narrow);
  S.endExternal(Lc);
  EXPECT_LE(S.info(Narrow).Width, 16u);
  EXPECT_LE(S.blockDuration("crowded"), 20us); // under the limit
  simulateUntil(Sim, S, Sim.clock().now() + 2s);
  // Idle now, but measured only at 2 a SM: PTB, at full width...
  uint64_t Full = crowded(6400);
  EXPECT_EQ(S.info(Full).LaunchForm, Form::Ptb);
  EXPECT_EQ(S.info(Full).Width, 64u);
  simulateToEnd(Sim, S);
  // ...where its blocks are measured over the limit: PTB again.
  EXPECT_GT(S.blockDuration("crowded"), 20us);
  uint64_t Again = crowded(6400);
  EXPECT_EQ(S.info(Again).LaunchForm, Form::Ptb);
  simulateToEnd(Sim, S);
  for (uint64_t Id : {Narrow, Full, Again})
    expectExactlyOnce(Sim.record(Id));
}

TEST_F(SchedulerSimTest, ADrainRunsBestEffortWorkThroughLcWork) {
  // What a module load's hold asks for when a bracket will not end: the BE
  // queues empty with the bracket open, work paused mid-run, work that
  // never started and kernels without variants alike.
  uint64_t Running = S.submit(be(20000, 10us, 1));
  simulateUntil(Sim, S, 100us);
  ASSERT_EQ(S.info(Running).State, WorkState::Running);
  uint64_t Lc = S.beginExternal();
  uint64_t Behind = S.submit(be(2000, 10us, 1));
  Work Plain = be(64, 10us, 2, "plain");
  Plain.Kernel.HasPtb = Plain.Kernel.HasSlice = false;
  uint64_t NoVariants = S.submit(std::move(Plain));
  simulateUntil(Sim, S, 300us);
  EXPECT_EQ(S.info(Running).State, WorkState::Paused);
  EXPECT_EQ(S.info(NoVariants).State, WorkState::Queued);
  uint64_t PausesBefore = S.pauses();
  S.drainBestEffort(true);
  uint64_t During = S.submit(be(640, 10us, 1));
  simulateToEnd(Sim, S);
  EXPECT_TRUE(S.bestEffortIdle());
  EXPECT_EQ(S.pauses(), PausesBefore) << "BE work yielded during the drain";
  for (uint64_t Id : {Running, Behind, NoVariants, During})
    expectExactlyOnce(Sim.record(Id));
  EXPECT_EQ(S.originals(), 1u); // the kernel without variants
  // Off again, BE work yields to the bracket that is still open.
  S.drainBestEffort(false);
  uint64_t After = S.submit(be(640, 10us, 1));
  simulateUntil(Sim, S, Sim.clock().now() + 100us);
  EXPECT_EQ(S.info(After).State, WorkState::Queued);
  S.endExternal(Lc);
  simulateToEnd(Sim, S);
  expectExactlyOnce(Sim.record(After));
}

TEST(SchedulerSim, NotedExternalWorkEndsTheQuietSpellAndPausesNothing) {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = options();
  O.FullWidthWhenQuiet = true;
  O.OriginalForOneWaveWhenQuiet = true;
  Scheduler S{Sim, O};
  auto issued = [&](uint64_t Blocks) {
    Work W = be(Blocks, 10us, 1, "tile");
    W.IssueAtOnce = true;
    return S.submit(std::move(W));
  };
  uint64_t Quiet = issued(48);
  EXPECT_EQ(S.info(Quiet).LaunchForm, Form::Original);
  uint64_t Running = issued(640);
  // A bracket that began and ended unseen: nothing yields to it, and one
  // wave is PTB again after it, as after bracketed LC work.
  S.noteExternal();
  EXPECT_EQ(S.pauses(), 0u);
  EXPECT_EQ(S.info(Running).State, WorkState::Running);
  simulateToEnd(Sim, S);
  uint64_t After = issued(48);
  EXPECT_EQ(S.info(After).LaunchForm, Form::Ptb);
  simulateToEnd(Sim, S);
  for (uint64_t Id : {Quiet, Running, After})
    expectExactlyOnce(Sim.record(Id));
}

TEST_F(SchedulerSimTest, WithoutReserveLongBlocksWouldMissTheBound) {
  // The same arrival against the first, unmeasured launch: the queueing
  // delay is the 300 us block, so the reserve above is what keeps it short.
  uint64_t Be = S.submit(be(640, 300us, 0, "long"));
  simulateUntil(Sim, S, 150us);
  uint64_t Lc = S.submit(lightLc(20us));
  simulateToEnd(Sim, S);
  EXPECT_GT(queueingDelay(Sim.record(Lc)), 100us);
  expectExactlyOnce(Sim.record(Be));
}

TEST_F(SchedulerSimTest, SlicesWhenThereIsNoPtbVariant) {
  Work W = be(3000, 10us);
  W.Kernel.HasPtb = false;
  uint64_t Be = S.submit(std::move(W));
  simulateUntil(Sim, S, 100us);
  EXPECT_EQ(S.info(Be).LaunchForm, Form::Slices);
  EXPECT_EQ(S.info(Be).Width, 5u * 64); // 2 slices x 5 waves x 10 us
  uint64_t Lc = S.submit(heavyLc());
  simulateToEnd(Sim, S);
  EXPECT_GE(Sim.record(Be).Pauses, 1u);
  EXPECT_LE(queueingDelay(Sim.record(Lc)), 100us);
  expectExactlyOnce(Sim.record(Be));
}

// A storm of LC arrivals of both kinds over two BE queues, one of them
// sliced: every virtual block runs once and no LC kernel waits past the
// bound. Arrivals are spaced so that LC kernels do not queue behind each
// other: the delay measured is the one BE work causes.
TEST_F(SchedulerSimTest, StormKeepsExactlyOnceAndTheBound) {
  S.submit(lightLc()); // measured, so later light arrivals share space
  simulateToEnd(Sim, S);
  Nanos T0 = Sim.clock().now();
  std::vector<uint64_t> Bes, Lcs;
  Bes.push_back(S.submit(be(30000, 10us, 1)));
  Work Sliced = be(20000, 12us, 2, "sliced");
  Sliced.Kernel.HasPtb = false;
  Bes.push_back(S.submit(std::move(Sliced)));
  Bes.push_back(S.submit(be(5000, 10us, 1)));
  for (int I = 0; I < 24; ++I) {
    // Irregular but increasing arrival times.
    simulateUntil(Sim, S, T0 + Nanos(250us) * I + Nanos(11us) * (I * I % 5));
    Lcs.push_back(S.submit(I % 3 ? lightLc(100us) : heavyLc()));
  }
  simulateToEnd(Sim, S);
  EXPECT_TRUE(S.idle());
  EXPECT_GE(relaunchesOfExactlyOnce(Sim, Bes), 10u);
  for (uint64_t Id : Lcs) {
    expectExactlyOnce(Sim.record(Id));
    EXPECT_LE(queueingDelay(Sim.record(Id)), 100us) << "LC work " << Id;
  }
}

struct ClaimsOfSeveralBlocks : ::testing::Test {
  SimulatedExecutor Sim{smallDevice()};
  SchedulerOptions O = [] {
    SchedulerOptions O = options();
    O.ClaimInterval = 20us;
    return O;
  }();
  Scheduler S{Sim, O};
};

TEST_F(ClaimsOfSeveralBlocks, APauseWaitsForTheClaimEachWorkerHolds) {
  // 10 us blocks (the unmeasured default too), 20 us per claim: two blocks
  // a claim. The workers start together after the 20 us relaunch and claim
  // at 20 us + k * 20 us.
  uint64_t Be = S.submit(be(20000, 10us));
  simulateUntil(Sim, S, 194us);
  S.submit(heavyLc());
  EXPECT_EQ(S.info(Be).State, WorkState::Pausing);
  // The flag lands at 201 us, just after the claims of 200 us: the workers
  // leave when those two blocks are done, at 220 us (one-block claims
  // would have left at 210 us).
  simulateUntil(Sim, S, 219us);
  EXPECT_EQ(S.info(Be).State, WorkState::Pausing);
  simulateUntil(Sim, S, 221us);
  EXPECT_EQ(S.info(Be).State, WorkState::Paused);
  simulateToEnd(Sim, S);
  expectExactlyOnce(Sim.record(Be));
}

TEST_F(ClaimsOfSeveralBlocks, ClaimsShrinkSoTheLastWorkersFinishTogether) {
  // 64 workers, two blocks a claim (from the 10 us default estimate), 256
  // + 8 blocks of 5 us: with fixed claims the last 8 blocks fall to four
  // workers, two each, after the rest; guided claims shrink to one block
  // near the end.
  uint64_t Be = S.submit(be(264, 5us));
  Nanos Done = [&] {
    while (!S.info(Be).DoneAt && Sim.step())
      S.poll();
    return *S.info(Be).DoneAt;
  }();
  expectExactlyOnce(Sim.record(Be));
  // 20 us relaunch overhead, then at most 264 / 64 rounded up = 5 rounds
  // of 5 us: a round more would mean a worker held blocks the rest lacked.
  EXPECT_LE(Done, 20us + 5 * 5us);
}

TEST_F(ClaimsOfSeveralBlocks, FirstSharesHandOutAShallowGridWithNoClaim) {
  // Claims of up to 3 blocks (30 us a claim, 10 us blocks estimated), 64
  // workers, blocks of 5 us. The launch's task hands each worker its whole
  // share of the grid, rounded up (task.h, first shares), and puts the
  // cursor past them: where they cover the grid, no worker claims at all
  // (its view of the cursor is at the end):
  //  * 192 blocks: shares of 3, 3 rounds;
  //  * 128 blocks: shares of 2, 2 rounds;
  //  * 160 blocks: shares of 3, 53 workers hold 3, one the last block.
  // Deeper than 64 shares of 3, the rest is claimed: 1000 blocks.
  O.ClaimInterval = 30us;
  for (auto [Blocks, Rounds] :
       {std::tuple{192u, 3}, std::tuple{128u, 2}, std::tuple{160u, 3}}) {
    SimulatedExecutor Fresh{smallDevice()};
    Scheduler Wider{Fresh, O};
    uint64_t Be = Wider.submit(be(Blocks, 5us));
    Nanos Done = test::runUntilDone(Fresh, Wider, Be);
    expectExactlyOnce(Fresh.record(Be));
    EXPECT_EQ(Fresh.record(Be).Widths, std::vector<uint32_t>{64}) << Blocks;
    EXPECT_EQ(Fresh.record(Be).Claims, 0u) << Blocks;
    EXPECT_LE(Done, 20us + Rounds * 5us) << Blocks;
  }
  SimulatedExecutor Fresh{smallDevice()};
  Scheduler Wider{Fresh, O};
  uint64_t Be = Wider.submit(be(1000, 5us));
  test::runUntilDone(Fresh, Wider, Be);
  expectExactlyOnce(Fresh.record(Be));
  // 808 blocks past the shares, in claims of at most 3.
  EXPECT_GE(Fresh.record(Be).Claims, 808u / 3);
}

/// Runs one BE launch of ten rounds of \p Block blocks on \p Sim, so that
/// \p S has measured the kernel's blocks ("train", as be() names it).
static void measureBlocks(SimulatedExecutor &Sim, Scheduler &S, Nanos Block) {
  uint64_t First = S.submit(be(640, Block));
  test::runUntilDone(Sim, S, First);
  expectExactlyOnce(Sim.record(First));
}

/// The record of one BE launch of \p Blocks blocks of 10 us, alone on a
/// fresh small device under \p O after a launch that measured them, once
/// Done and checked exactly once.
static SimRecord aloneUnder(const SchedulerOptions &O, uint32_t Blocks) {
  SimulatedExecutor Fresh{smallDevice()};
  Scheduler Alone{Fresh, O};
  measureBlocks(Fresh, Alone, 10us);
  uint64_t Be = Alone.submit(be(Blocks, 10us));
  test::runUntilDone(Fresh, Alone, Be);
  expectExactlyOnce(Fresh.record(Be));
  return Fresh.record(Be);
}

TEST_F(ClaimsOfSeveralBlocks, CoveringSharesHoldMoreThanAClaimWithinTheBound) {
  // One block a claim (no claim interval), blocks measured at 10 us, 64
  // workers of 8 warps: a crowded SM drains in 7 +
  // 10 s + max(10 s, 60) us after shares of s blocks, within the 100 us
  // bound up to s = 3. With CoveringFirstShares, grids of up to 3 blocks a
  // worker get shares that cover them and no worker claims; a deeper grid
  // keeps shares of one block, and so does every grid without the option.
  O.ClaimInterval = 0us;
  for (bool Covering : {false, true})
    for (auto [Blocks, Covered] :
         {std::tuple{192u, true}, std::tuple{130u, true},
          std::tuple{256u, false}}) {
      O.CoveringFirstShares = Covering;
      SCOPED_TRACE(std::to_string(Blocks) + " blocks, covering " +
                   std::to_string(Covering));
      SimRecord Rec = aloneUnder(O, Blocks);
      EXPECT_EQ(Rec.Widths, std::vector<uint32_t>{64});
      if (Covering && Covered)
        EXPECT_EQ(Rec.Claims, 0u);
      else
        EXPECT_GE(Rec.Claims, Blocks - 64);
    }
}

TEST_F(ClaimsOfSeveralBlocks, CoveringSharesWaitForMeasuredBlocks) {
  // A share no worker interrupts is sized on measured blocks only: the
  // kernel's first launch, on the assumed 10 us, gets shares of a claim
  // and claims the rest; once its blocks were measured, shares of 3 cover
  // 192 blocks.
  O.ClaimInterval = 0us;
  O.CoveringFirstShares = true;
  SimulatedExecutor Fresh{smallDevice()};
  Scheduler Covering{Fresh, O};
  uint64_t First = Covering.submit(be(192, 10us));
  test::runUntilDone(Fresh, Covering, First);
  expectExactlyOnce(Fresh.record(First));
  EXPECT_GE(Fresh.record(First).Claims, 192u - 64);
  uint64_t Second = Covering.submit(be(192, 10us));
  test::runUntilDone(Fresh, Covering, Second);
  expectExactlyOnce(Fresh.record(Second));
  EXPECT_EQ(Fresh.record(Second).Claims, 0u);
}

TEST_F(ClaimsOfSeveralBlocks, APauseWaitsForACoveringShareWithinTheBound) {
  // Without a prompt-claim limit an SM drains in 7 + 10 s us after shares
  // of s blocks measured at 10 us: 9 within the 100 us bound. Shares of 9
  // cover 576 blocks over 64 workers; the workers never look at `preempt`,
  // so LC work arriving as they start waits for the whole run, 90 us.
  DeviceFacts D = smallDevice();
  D.PromptClaimWorkersPerSm = D.PromptClaimWarpsPerSm = 0;
  SimulatedExecutor Uncrowded{D};
  O.ClaimInterval = 0us;
  O.CoveringFirstShares = true;
  Scheduler Covering{Uncrowded, O};
  measureBlocks(Uncrowded, Covering, 10us);
  Nanos Start = Uncrowded.clock().now();
  uint64_t Be = Covering.submit(be(576, 10us));
  simulateUntil(Uncrowded, Covering, Start + 21us);
  Nanos LcAt = Uncrowded.clock().now();
  uint64_t Lc = Covering.submit(heavyLc());
  Nanos BeDone = test::runUntilDone(Uncrowded, Covering, Be);
  test::runUntilDone(Uncrowded, Covering, Lc);
  expectExactlyOnce(Uncrowded.record(Be));
  EXPECT_EQ(Uncrowded.record(Be).Claims, 0u);
  EXPECT_EQ(Uncrowded.record(Be).Pauses, 0u);
  EXPECT_GE(BeDone, LcAt + 80us);
  EXPECT_LE(BeDone, LcAt + O.PreemptionBound);
}

TEST_F(ClaimsOfSeveralBlocks, AQuietDeviceKeepsCoveringSharesToTheBound) {
  // While quiet the scheduler gives BE work every worker whatever its
  // blocks (FullWidthWhenQuiet), but a share it cannot interrupt keeps the
  // bound: blocks measured at 10 us on a crowded SM allow shares of 3, so
  // 320 blocks (5 a worker) are not covered and the workers claim.
  O.ClaimInterval = 0us;
  O.CoveringFirstShares = true;
  O.FullWidthWhenQuiet = true;
  for (auto [Blocks, Covered] :
       {std::tuple{192u, true}, std::tuple{320u, false}}) {
    SimRecord Rec = aloneUnder(O, Blocks);
    if (Covered)
      EXPECT_EQ(Rec.Claims, 0u) << Blocks;
    else
      EXPECT_GE(Rec.Claims, Blocks - 64) << Blocks;
  }
}

/// A PTB launch of \p Blocks blocks of 5 us with claims of up to 3, issued
/// paused with \p IssuedWidth workers, then resumed with 64 (with the
/// lowest SM vacated, if \p Vacate): its record once Done, and when.
static std::pair<SimRecord, Nanos>
startedPausedThenResumed(uint32_t Blocks, uint32_t IssuedWidth,
                         bool Vacate = false) {
  DeviceFacts D = smallDevice();
  D.CanVacate = Vacate;
  SimulatedExecutor Sim{D};
  KernelShape K;
  K.Name = "kernel";
  K.Blocks = Blocks;
  K.ThreadsPerBlock = 256;
  K.HasPtb = true;
  std::any Payload = SimKernel{5us};
  LaunchRequest R{1, &K, Form::Ptb, IssuedWidth, false, 0, &Payload};
  R.StartPaused = true;
  R.ClaimChunk = 3;
  Sim.launch(R);
  if (Vacate)
    Sim.vacate(1, 1);
  Sim.resume(1, 64, 0);
  while (Sim.step())
    ;
  EXPECT_EQ(Sim.poll().size(), 1u) << Blocks;
  return {Sim.record(1), Sim.clock().now()};
}

TEST(ClaimsOfAResumedRun, FirstSharesSurviveAResumeAtTheIssuedWidth) {
  // A launch issued paused (a training job's launches queued ahead) gets
  // the first shares of the width it is issued with; resumed at that
  // width, its workers claim nothing where the shares cover the grid, and
  // take at most three rounds of blocks.
  for (uint32_t Blocks : {192u, 128u, 160u}) {
    auto [Rec, Done] = startedPausedThenResumed(Blocks, 64);
    expectExactlyOnce(Rec);
    EXPECT_EQ(Rec.Claims, 0u) << Blocks;
    EXPECT_LE(Done, 20us + 3 * 5us) << Blocks;
  }
}

TEST(ClaimsOfAResumedRun, FirstClaimsHandOutAShallowGridAtOnce) {
  // Resumed at another width than it was issued with, a launch started
  // paused withdraws its first shares, so each worker makes its first
  // claim itself: its whole share of the grid, rounded up, and a worker
  // whose claim runs dry claims once more to find the grid exhausted,
  // unless its claim reached the end (its view of the cursor is there).
  // Claims of up to 3 blocks, 64 workers, blocks of 5 us:
  //  * 192 blocks: shares of 3, all 64 workers hold blocks, 2 claims each
  //    but the one that took the last blocks (half shares from the start
  //    make 4 claims a worker);
  //  * 128 blocks: shares of 2, again 64 + 63 claims;
  //  * 160 blocks: shares of 2.5 make claims of 3: 53 workers take 159
  //    blocks, one takes the last block with a claim past the end (and
  //    leaves without another), 10 find nothing: 64 + 53 claims.
  for (auto [Blocks, Claims, Rounds] :
       {std::tuple{192u, 127u, 3}, std::tuple{128u, 127u, 2},
        std::tuple{160u, 64u + 53u, 3}}) {
    auto [Rec, Done] = startedPausedThenResumed(Blocks, 48);
    expectExactlyOnce(Rec);
    EXPECT_EQ(Rec.Claims, Claims) << Blocks;
    EXPECT_LE(Done, 20us + Rounds * 5us) << Blocks;
  }
}

TEST(ClaimsOfAResumedRun, VacatedSmsWithdrawTheFirstShares) {
  // Workers on a vacated SM must leave before they run anything, so a
  // launch started paused whose SMs were vacated before its first run
  // withdraws its shares: the workers kept claim every block.
  for (uint32_t Blocks : {192u, 128u, 160u}) {
    auto [Rec, Done] = startedPausedThenResumed(Blocks, 64, /*Vacate=*/true);
    expectExactlyOnce(Rec);
    EXPECT_GT(Rec.Claims, 0u) << Blocks;
  }
}

TEST_F(ClaimsOfSeveralBlocks, StormKeepsExactlyOnce) {
  std::vector<uint64_t> Bes = {S.submit(be(30000, 2us, 1)),
                               S.submit(be(7001, 3us, 1)),
                               S.submit(be(5000, 10us, 2))};
  for (int I = 0; I < 24; ++I) {
    simulateUntil(Sim, S, Nanos(170us) * I + Nanos(13us) * (I * I % 7));
    S.submit(I % 3 ? lightLc(40us) : heavyLc());
  }
  simulateToEnd(Sim, S);
  EXPECT_TRUE(S.idle());
  EXPECT_GE(relaunchesOfExactlyOnce(Sim, Bes), 5u);
}

TEST_F(SchedulerSimTest, SloMissesAreCounted) {
  Work Lc = heavyLc(30us);
  Lc.Slo = 20us; // the kernel alone takes two 30 us waves
  S.submit(std::move(Lc));
  Work Easy = heavyLc(30us);
  Easy.Slo = 1000us;
  S.submit(std::move(Easy));
  simulateToEnd(Sim, S);
  EXPECT_EQ(S.sloMisses(), 1u);
}

TEST(SchedulerSim, NoResizeMeansTimeSharing) {
  DeviceFacts D = smallDevice();
  D.CanResize = false;
  SimulatedExecutor Sim(D);
  Scheduler S(Sim, options());
  S.submit(lightLc());
  simulateToEnd(Sim, S);
  uint64_t Be = S.submit(be(20000, 10us));
  simulateUntil(Sim, S, Sim.clock().now() + 100us);
  uint64_t Lc = S.submit(lightLc());
  EXPECT_EQ(S.info(Lc).HowShared, Sharing::Time);
  simulateToEnd(Sim, S);
  EXPECT_EQ(Sim.record(Be).Widths, (std::vector<uint32_t>{64, 64}));
  expectExactlyOnce(Sim.record(Be));
}

} // namespace
