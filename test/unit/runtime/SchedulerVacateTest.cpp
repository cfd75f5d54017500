//===- SchedulerVacateTest.cpp - Space sharing by vacating SMs ------------===//
//
// The scheduler over a simulated device whose PTB workers leave the SMs
// below a watermark (DeviceFacts::CanVacate, task ABI 3). The device: 8 SMs
// of 2048 threads; BE kernels of 256-thread blocks fit 8 per SM.
//
//===----------------------------------------------------------------------===//

#include "SimTestSupport.h"

using namespace baton::sched;
using namespace std::chrono_literals;

namespace {

using namespace baton::sched::test;

DeviceFacts vacatingDevice() {
  DeviceFacts D = smallDevice();
  D.CanVacate = true;
  return D;
}

SchedulerOptions options() { return simOptions(); }

struct VacatingSchedulerTest : ::testing::Test {
  SimulatedExecutor Sim{vacatingDevice()};
  Scheduler S{Sim, options()};

  Nanos runUntilDone(uint64_t Id) { return test::runUntilDone(Sim, S, Id); }
};

TEST_F(VacatingSchedulerTest, LcKernelTakesVacatedSmsWithoutAPause) {
  uint64_t Be = S.submit(be(20000, 10us));
  simulateUntil(Sim, S, 100us);
  uint64_t Lc = S.submit(lightLc(500us));
  EXPECT_EQ(S.info(Lc).HowShared, Sharing::Space);
  EXPECT_EQ(S.info(Be).State, WorkState::Running);
  EXPECT_EQ(S.info(Be).VacatedSms, 2u);
  // Signal (7 us) and the block each worker on SMs 0-1 holds (10 us).
  simulateUntil(Sim, S, 100us + 18us);
  EXPECT_EQ(Sim.resident(Be), 48u);
  EXPECT_EQ(Sim.resident(Lc), 16u);
  EXPECT_LE(queueingDelay(Sim.record(Lc)), 18us);
  EXPECT_EQ(S.pauses(), 0u);

  // About 3 ms of BE work at full width: worth a relaunch to take the SMs
  // back once the LC kernel is done.
  simulateUntil(Sim, S, runUntilDone(Lc) + 50us);
  EXPECT_EQ(S.info(Be).VacatedSms, 0u);
  EXPECT_EQ(Sim.resident(Be), 64u);
  EXPECT_EQ(Sim.record(Be).Widths, (std::vector<uint32_t>{64, 64}));
  simulateToEnd(Sim, S);
  expectExactlyOnce(Sim.record(Be));
}

TEST_F(VacatingSchedulerTest, ShortLaunchFinishesOnTheSmsItKept) {
  uint64_t Be = S.submit(be(640, 10us)); // 100 us at full width
  simulateUntil(Sim, S, 20us);
  uint64_t Lc = S.beginExternal(2);
  simulateUntil(Sim, S, 40us);
  EXPECT_EQ(Sim.resident(Be), 48u);
  S.endExternal(Lc);
  simulateToEnd(Sim, S);
  EXPECT_EQ(S.info(Be).Launches, 1u); // lowered in place, no relaunch
  EXPECT_EQ(S.pauses(), 0u);
  EXPECT_EQ(S.vacates(), 2u); // raised to 2, then back to 0
  expectExactlyOnce(Sim.record(Be));
}

TEST_F(VacatingSchedulerTest, BlocksAreTimedOnTheSmsTheLaunchKept) {
  // Vacated, then given back in place: the workers that left do not come
  // back, so the launch's blocks ran 48 at a time, not 64, and a 10 us
  // block must not be measured as a longer one.
  uint64_t Be = S.submit(be(640, 10us)); // too short to be regrown
  simulateUntil(Sim, S, 20us);
  uint64_t Lc = S.beginExternal(2);
  simulateUntil(Sim, S, 40us);
  S.endExternal(Lc);
  runUntilDone(Be);
  EXPECT_EQ(S.info(Be).Launches, 1u);
  EXPECT_GE(S.blockDuration("train"), 8us);
  EXPECT_LE(S.blockDuration("train"), 11us);
}

TEST_F(VacatingSchedulerTest, ReservedSmsAreReallyFreeForLongBlocks) {
  // 300 us blocks miss the bound at any width. Once LC work has been seen,
  // the launch keeps MinReservedSms vacated, so the next LC kernel starts
  // at once instead of waiting for a block.
  uint64_t First = S.submit(be(640, 300us, 0, "long"));
  simulateUntil(Sim, S, 50us);
  runUntilDone(S.submit(lightLc(20us)));
  runUntilDone(First);
  uint64_t Be = S.submit(be(640, 300us, 0, "long"));
  simulateUntil(Sim, S, Sim.clock().now() + 150us);
  EXPECT_EQ(S.info(Be).VacatedSms, 2u);
  uint64_t Lc = S.submit(lightLc(20us));
  simulateToEnd(Sim, S);
  EXPECT_LE(queueingDelay(Sim.record(Lc)), 1us);
  expectExactlyOnce(Sim.record(Be));
}

/// The scheduler with SchedulerOptions::ReserveWhileLcAbout.
struct ReservingSchedulerTest : ::testing::Test {
  SimulatedExecutor Sim{vacatingDevice()};
  Scheduler S{Sim, [] {
                SchedulerOptions O = options();
                O.ReserveWhileLcAbout = true;
                return O;
              }()};

  /// A launch of 60 us blocks (measured by an earlier one) submitted after
  /// a 2-SM bracket, run for 200 us: LC work is about, none is active. At
  /// 8 workers an SM drains too slowly for the 100 us bound, so without
  /// the reserve such a launch would be held to the prompt 2 per SM.
  uint64_t longBlocksBesideTheReserve() {
    runUntilDone(Sim, S, S.submit(be(640, 60us, 0, "long")));
    S.endExternal(S.beginExternal(2));
    uint64_t Be = S.submit(be(20000, 60us, 0, "long"));
    simulateUntil(Sim, S, Sim.clock().now() + 200us);
    return Be;
  }

  /// \p Be keeps the 2 reserved SMs vacated and fills the 6 others; the
  /// next LC kernel starts at once, and every block of \p Be runs once.
  void expectFullKeptSmsAndAFreeReserve(uint64_t Be) {
    EXPECT_EQ(S.info(Be).VacatedSms, 2u);
    EXPECT_EQ(Sim.resident(Be), 48u);
    uint64_t Next = S.submit(lightLc(20us));
    simulateToEnd(Sim, S);
    EXPECT_LE(queueingDelay(Sim.record(Next)), 1us);
    expectExactlyOnce(Sim.record(Be));
  }
};

TEST_F(ReservingSchedulerTest, KeepsShortBlocksOffTheReserve) {
  uint64_t Be = S.submit(be(20000, 10us));
  simulateUntil(Sim, S, 50us);
  EXPECT_EQ(S.info(Be).VacatedSms, 0u); // no LC work seen yet
  uint64_t Lc = S.beginExternal(2);
  simulateUntil(Sim, S, 100us);
  S.endExternal(Lc);
  simulateUntil(Sim, S, 200us);
  // LC work is about: the SMs stay vacated between requests.
  expectFullKeptSmsAndAFreeReserve(Be);
}

TEST_F(ReservingSchedulerTest, FillsTheSmsItKeeps) {
  // LC work of the reserve's size never waits for the kept SMs, so they
  // get every co-resident worker, with workers for every SM: those the
  // hardware puts on the reserve leave.
  uint64_t Be = longBlocksBesideTheReserve();
  EXPECT_EQ(Sim.record(Be).Widths.front(), 64u); // 8 per SM, not 2 per kept
  expectFullKeptSmsAndAFreeReserve(Be);
}

TEST_F(ReservingSchedulerTest, LcWorkLargerThanTheReserveWaitsForTheKeptSms) {
  // The price of full kept SMs: a bracket that needs every SM pauses the
  // launch and waits for each worker's block, not for the bound's.
  uint64_t Be = longBlocksBesideTheReserve();
  ASSERT_EQ(Sim.resident(Be), 48u);
  Nanos Asked = Sim.clock().now();
  uint64_t Whole = S.beginExternal(0);
  while (Sim.resident(Be) && Sim.nextEvent())
    simulateUntil(Sim, S, *Sim.nextEvent());
  EXPECT_EQ(S.info(Be).State, WorkState::Paused);
  EXPECT_LE(Sim.clock().now() - Asked, 7us + 60us);
  S.endExternal(Whole);
  simulateToEnd(Sim, S);
  expectExactlyOnce(Sim.record(Be));
}

TEST(VacatingScheduler, ReserveOfNoSmsKeepsTheBound) {
  // No SMs to reserve (none by default, no space-shared LC work seen): the
  // launch beside LC work stays at the prompt 2 workers per SM, since LC
  // work would wait for every kept SM.
  SimulatedExecutor Sim(vacatingDevice());
  SchedulerOptions O = options();
  O.ReserveWhileLcAbout = true;
  O.MinReservedSms = 0;
  Scheduler S(Sim, O);
  runUntilDone(Sim, S, S.submit(be(640, 60us, 0, "long")));
  S.endExternal(S.beginExternal(0));
  uint64_t Be = S.submit(be(20000, 60us, 0, "long"));
  simulateUntil(Sim, S, Sim.clock().now() + 200us);
  EXPECT_EQ(S.info(Be).VacatedSms, 0u);
  EXPECT_EQ(Sim.record(Be).Widths.front(), 16u);
  simulateToEnd(Sim, S);
  expectExactlyOnce(Sim.record(Be));
}

/// Launch 1 on the executor: \p Blocks blocks of 10 us as \p Workers PTB
/// workers, simulated for 25 us.
struct PtbRun {
  KernelShape K;
  std::any Payload = SimKernel{10us};

  PtbRun(SimulatedExecutor &Sim, uint64_t Blocks, uint32_t Workers) {
    K.Name = "kernel";
    K.Blocks = Blocks;
    K.ThreadsPerBlock = 256;
    K.HasPtb = true;
    Sim.launch({1, &K, Form::Ptb, Workers, false, 0, &Payload});
    while (Sim.nextEvent() && *Sim.nextEvent() < 25us)
      Sim.step();
  }
};

TEST(VacatingExecutor, LaunchWhoseWorkersAllLeftStopsPaused) {
  // Four workers for 100 blocks: the simulation packs them onto SM 0. When
  // SMs 0-1 are vacated every worker leaves with work left, so the launch
  // reports Paused though no pause was asked; resumed, it runs on the SMs
  // kept (the scheduler resumes such a launch like any paused one).
  SimulatedExecutor Sim(vacatingDevice());
  PtbRun Run(Sim, 100, 4);
  EXPECT_EQ(Sim.resident(1), 4u);
  Sim.vacate(1, 2);
  std::vector<Completion> Stopped;
  while (Stopped.empty() && Sim.step())
    Stopped = Sim.poll();
  ASSERT_EQ(Stopped.size(), 1u);
  EXPECT_EQ(Stopped[0].What, Completion::Paused);
  EXPECT_EQ(Stopped[0].WorkersLeft, 4u);
  EXPECT_EQ(Sim.record(1).Pauses, 1u);
  Sim.resume(1, 4, 0);
  while (Sim.step())
    ;
  std::vector<Completion> Done = Sim.poll();
  ASSERT_EQ(Done.size(), 1u);
  EXPECT_EQ(Done[0].What, Completion::Done);
  EXPECT_EQ(Done[0].WorkersLeft, 0u); // this run's, not the launch's
  expectExactlyOnce(Sim.record(1));
}

TEST(VacatingExecutor, CountsTheWorkersThatLeftAVacatedSm) {
  // 64 workers fill the 8 SMs; vacating SMs 0-1 mid-run sends their 16
  // away at their next claim, the rest finish the launch.
  SimulatedExecutor Sim(vacatingDevice());
  PtbRun Run(Sim, 640, 64);
  EXPECT_EQ(Sim.resident(1), 64u);
  Sim.vacate(1, 2);
  while (Sim.step())
    ;
  std::vector<Completion> Done = Sim.poll();
  ASSERT_EQ(Done.size(), 1u);
  EXPECT_EQ(Done[0].What, Completion::Done);
  EXPECT_EQ(Done[0].WorkersLeft, 16u);
  expectExactlyOnce(Sim.record(1));
}

// LC arrivals that vacate and give back SMs over and over, light ones and
// ones that take the whole device: every BE block runs exactly once.
TEST_F(VacatingSchedulerTest, StormKeepsExactlyOnce) {
  std::vector<uint64_t> Bes;
  for (int I = 0; I < 4; ++I)
    Bes.push_back(S.submit(be(3000 + 997 * I, 10us + 3us * I)));
  Nanos T0 = Sim.clock().now();
  for (int I = 0; I < 30; ++I) {
    simulateUntil(Sim, S, T0 + Nanos(130us) * I + Nanos(7us) * (I * I % 11));
    if (I % 4 == 3) {
      uint64_t Whole = S.beginExternal();
      simulateUntil(Sim, S, Sim.clock().now() + 40us);
      S.endExternal(Whole);
    } else {
      uint64_t Part = S.beginExternal(1 + I % 6);
      simulateUntil(Sim, S, Sim.clock().now() + 60us);
      S.endExternal(Part);
    }
  }
  simulateToEnd(Sim, S);
  EXPECT_TRUE(S.idle());
  EXPECT_GE(S.vacates(), 10u);
  for (uint64_t Id : Bes)
    expectExactlyOnce(Sim.record(Id));
}

TEST_F(VacatingSchedulerTest, LaunchIssuedVacatedIsTimedByTheWorkersThatStayed) {
  // Issued while LC work holds SMs 0-1, a prompt launch's workers all go to
  // the SMs kept: the simulated device places them there first, as the
  // H100 does when LC blocks fill the vacated SMs (bench/vacate_placement).
  // Its 12 workers ran 12 at a time, not 12 * 6 / 8 = 9, so 60 us blocks
  // must not be measured as 45 us ones.
  uint64_t Lc = S.beginExternal(2);
  // The first launch, every worker (16 of them leave SMs 0-1), measures
  // the blocks; the second runs at the prompt width.
  runUntilDone(S.submit(be(640, 60us, 0, "long")));
  uint64_t Be = S.submit(be(640, 60us, 0, "long"));
  simulateUntil(Sim, S, Sim.clock().now() + 40us);
  EXPECT_EQ(S.info(Be).Width, 12u);
  EXPECT_EQ(S.info(Be).VacatedSms, 2u);
  EXPECT_EQ(Sim.resident(Be), 12u);
  runUntilDone(Be);
  EXPECT_GE(S.blockDuration("long"), 57us);
  EXPECT_LE(S.blockDuration("long"), 63us);
  S.endExternal(Lc);
  expectExactlyOnce(Sim.record(Be));
}

} // namespace
