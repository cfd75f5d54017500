//===- SchedulerPolicyTest.cpp - The scheduler's decision rules -----------===//

#include "SchedulerPolicy.h"

#include "baton/task.h"

#include <gtest/gtest.h>

using namespace baton::sched;
using namespace std::chrono_literals;

namespace {

DeviceFacts smallDevice() {
  DeviceFacts D;
  D.Multiprocessors = 8;
  return D;
}

KernelShape shape(uint64_t Blocks, uint32_t Threads, bool Ptb = true) {
  KernelShape K;
  K.Name = "k";
  K.Blocks = Blocks;
  K.ThreadsPerBlock = Threads;
  K.HasPtb = Ptb;
  K.HasSlice = true;
  return K;
}

TEST(SchedulerPolicy, OccupancyTakesTheTightestLimit) {
  SmLimits Sm;
  KernelShape K = shape(1, 256);
  EXPECT_EQ(blocksPerSm(Sm, K, Form::Original), 8u); // threads
  K.RegistersPerThread = 64;
  EXPECT_EQ(blocksPerSm(Sm, K, Form::Original), 4u); // registers
  K.SharedMemBytes = 100 * 1024;
  EXPECT_EQ(blocksPerSm(Sm, K, Form::Original), 2u); // shared memory
  // The PTB loop state pushes a block that exactly fills an SM over.
  K.SharedMemBytes = Sm.SharedMemBytes / 2;
  EXPECT_EQ(blocksPerSm(Sm, K, Form::Original), 2u);
  EXPECT_EQ(blocksPerSm(Sm, K, Form::Ptb), 1u);
}

TEST(SchedulerPolicy, DurationModelStartsStaticThenAverages) {
  DurationModel M(10us, 0.5);
  EXPECT_EQ(M.latest("k"), 10us);
  EXPECT_EQ(M.of("k").at(4), 10us);
  M.recordBlock("k", 4, {100us, 1});
  EXPECT_EQ(M.latest("k"), 100us); // the first measurement replaces the guess
  M.recordBlock("k", 4, {200us, 1});
  EXPECT_EQ(M.latest("k"), 150us);
  EXPECT_EQ(M.of("k").at(4), 150us);
  EXPECT_EQ(M.latest("other"), 10us);
}

TEST(SchedulerPolicy, DurationModelKeepsEachOccupancyApart) {
  DurationModel M(10us, 0.5);
  M.recordBlock("k", 8, {160us, 1});
  // A first measurement at a new occupancy moves the estimate it had there
  // (the nearest occupancy's) as any sample does, and leaves the other
  // occupancy's estimate alone.
  M.recordBlock("k", 2, {60us, 1});
  EXPECT_EQ(M.of("k").at(2), 110us);
  EXPECT_EQ(M.of("k").at(8), 160us);
  EXPECT_EQ(M.latest("k"), 110us);
  M.recordBlock("k", 2, {60us, 8});
  EXPECT_LT(M.of("k").at(2), 61us);
  EXPECT_EQ(M.of("k").at(8), 160us);
  // Unmeasured occupancies take the nearest measured one; of two as near,
  // the fuller one.
  Nanos Prompt = M.of("k").at(2);
  EXPECT_EQ(M.of("k").at(1), Prompt);
  EXPECT_EQ(M.of("k").at(3), Prompt);
  EXPECT_EQ(M.of("k").at(5), 160us);
  EXPECT_EQ(M.of("k").at(32), 160us);
  EXPECT_EQ(M.of("other").at(8), 10us);
}

TEST(SchedulerPolicy, DurationModelCountsEachRoundOfARunAsASample) {
  DurationModel M(10us, 0.5);
  M.recordBlock("k", 8, {100us, 1});
  // Two rounds of 200 us move the average as two samples of 200 us would:
  // 100 -> 150 -> 175.
  M.recordBlock("k", 8, {200us, 2});
  EXPECT_EQ(M.latest("k"), 175us);
  // So a long run outweighs the one-round tails around it (whose elapsed
  // time holds the relaunch): 8 rounds take the estimate to within 1 us.
  M.recordBlock("k", 8, {100us, 8});
  EXPECT_LT(M.latest("k"), 101us);
}

TEST(SchedulerPolicy, OccupancyOfALaunchSpreadsItsBlocksOverEverySm) {
  DeviceFacts D = smallDevice();
  KernelShape K = shape(10000, 256); // 8 fit an SM
  EXPECT_EQ(blocksSharingAnSm(D, K, Form::Ptb, 64), 8u);
  EXPECT_EQ(blocksSharingAnSm(D, K, Form::Ptb, 16), 2u);
  EXPECT_EQ(blocksSharingAnSm(D, K, Form::Ptb, 12), 2u); // rounded up
  EXPECT_EQ(blocksSharingAnSm(D, K, Form::Ptb, 3), 1u);
  // Never more than fit, nor than the launch has blocks.
  EXPECT_EQ(blocksSharingAnSm(D, K, Form::Original, 10000), 8u);
  EXPECT_EQ(blocksSharingAnSm(D, shape(24, 256), Form::Original, 10000), 3u);
}

TEST(SchedulerPolicy, MeasuredBlockDividesByRounds) {
  Completion C;
  C.Elapsed = 300us;
  C.BlocksRun = 30;
  EXPECT_EQ(measuredBlock(C, 10)->Block, 100us);
  EXPECT_EQ(measuredBlock(C, 10)->Rounds, 3u);
  EXPECT_EQ(measuredBlock(C, 64)->Block, 300us);
  EXPECT_EQ(measuredBlock(C, 64)->Rounds, 1u);
  C.BlocksRun = 0;
  EXPECT_FALSE(measuredBlock(C, 10));
}

TEST(SchedulerPolicy, LightLongKernelsShareSpace) {
  DeviceFacts D = smallDevice();
  // 16 blocks of 256 threads fill 2 of 8 SMs; 500 us blocks leave BE the
  // other 6 SMs for long enough to pay for the extra relaunch.
  SharingChoice C = chooseSharing(D, shape(16, 256), 500us, 10us);
  EXPECT_EQ(C.How, Sharing::Space);
  EXPECT_EQ(C.Sms, 2u);
}

TEST(SchedulerPolicy, ShortOrHeavyKernelsGetTheDevice) {
  DeviceFacts D = smallDevice();
  EXPECT_EQ(chooseSharing(D, shape(16, 256), 10us, 10us).How, Sharing::Time);
  // 64 blocks of 256 threads need all 8 SMs.
  EXPECT_EQ(chooseSharing(D, shape(64, 256), 5000us, 10us).How, Sharing::Time);
  D.CanResize = false;
  EXPECT_EQ(chooseSharing(D, shape(16, 256), 500us, 10us).How, Sharing::Time);
}

TEST(SchedulerPolicy, PtbWidthFillsTheDeviceWhenBlocksYieldInTime) {
  DeviceFacts D = smallDevice();
  // 8 workers of 8 warps per SM: past the prompt-claim limit (16 warps),
  // so a pause may drain for longer than one block (at least
  // CrowdedExtraDrain more), which the bound still allows.
  WidthChoice W = chooseWidth(D, shape(10000, 256), 10us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.LaunchForm, Form::Ptb);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.ExpectedLatency,
            D.SignalLatency + 10us + D.CrowdedExtraDrain);
  EXPECT_TRUE(W.MeetsBound);
  // Never more workers than blocks.
  EXPECT_EQ(chooseWidth(D, shape(5, 256), 10us, 8, 100us, 2, 0us).Width, 5u);
}

TEST(SchedulerPolicy, PtbWidthCapsWorkersPerSmWhenACrowdedSmWouldMissTheBound) {
  DeviceFacts D = smallDevice();
  // 60 us blocks: two of them miss 100 us, one does not. 16 prompt warps
  // per SM are 2 workers of 8 warps.
  WidthChoice W = chooseWidth(D, shape(10000, 256), 60us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.LaunchForm, Form::Ptb);
  EXPECT_EQ(W.Width, 16u);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 60us);
  EXPECT_TRUE(W.MeetsBound);
  // Small blocks stay within the limit at full occupancy: no cap.
  D.Sm.MaxBlocks = 2;
  EXPECT_EQ(chooseWidth(D, shape(10000, 256), 60us, 8, 100us, 2, 0us).Width, 16u);
  EXPECT_EQ(
      chooseWidth(D, shape(10000, 256), 60us, 8, 100us, 2, 0us).ExpectedLatency,
      D.SignalLatency + 60us);
  // No limit configured: the old model, every worker stops after one block.
  D = smallDevice();
  D.PromptClaimWorkersPerSm = D.PromptClaimWarpsPerSm = 0;
  W = chooseWidth(D, shape(10000, 256), 60us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 60us);
}

TEST(SchedulerPolicy, PtbWidthCountsWorkersPerSmAsWellAsWarps) {
  DeviceFacts D = smallDevice();
  // 32 workers of 2 warps fit an SM; 16 warps would be 8 of them, but past
  // 4 workers per SM an SM is not prompt either.
  WidthChoice W = chooseWidth(D, shape(10000, 64), 60us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.Width, 4u * 8);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 60us);
  // Short blocks drain in time even from a crowded SM.
  W = chooseWidth(D, shape(10000, 64), 5us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.Width, 32u * 8);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 5us + D.CrowdedExtraDrain);
}

TEST(SchedulerPolicy, PtbWidthJudgesEachOccupancyByItsOwnBlockTime) {
  DeviceFacts D = smallDevice();
  // Blocks of 30 us at the prompt 2 workers per SM, and of 90 us at the
  // full 8: a full SM would drain in 7 + 90 + 90 us, over the bound; a
  // prompt one in 7 + 30 us.
  std::map<uint32_t, Nanos> Measured{{2, 30us}, {8, 90us}};
  BlockDurations Blocks(Measured, 10us);
  WidthChoice W = chooseWidth(D, shape(10000, 256), Blocks, 8, 100us, 2, 0us);
  EXPECT_EQ(W.Width, 16u);
  EXPECT_EQ(W.BlocksPerSm, 2u);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 30us);
  // One estimate of 30 us for both would have filled every SM.
  EXPECT_EQ(chooseWidth(D, shape(10000, 256), 30us, 8, 100us, 2, 0us).Width,
            64u);
  // With the full occupancy's blocks short enough, it still gets them all.
  Measured[8] = 30us;
  W = chooseWidth(D, shape(10000, 256), Blocks, 8, 100us, 2, 0us);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.BlocksPerSm, 8u);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 30us + D.CrowdedExtraDrain);
}

TEST(SchedulerPolicy, PromptModelClimbsWhileDrainsStayThoseOfTheBase) {
  PromptModel P;
  auto Record = [&](uint32_t PerSm, uint32_t Count, Nanos Drain,
                    const std::string &Kernel = "k") {
    for (uint32_t I = 0; I < Count; ++I)
      P.recordPause(Kernel, PerSm, Drain);
  };
  constexpr uint32_t Judge = PromptModel::SamplesToJudge;
  EXPECT_EQ(P.limit("k"), 0u); // no pause seen: the device's limits
  Record(2, Judge - 1, 60us);
  EXPECT_EQ(P.limit("k"), 0u); // not judged yet
  Record(2, 1, 60us);
  EXPECT_EQ(P.limit("k"), 3u); // the base, and one step past it
  // Drains within 1.2x of the base's median, however a few stray.
  Record(3, Judge - 2, 70us);
  Record(3, 2, 900us);
  EXPECT_EQ(P.limit("k"), 4u);
  EXPECT_EQ(P.limit("other"), 0u);
  // Longer by median: grown, and the climb ends below it, whatever is seen
  // above.
  Record(4, Judge, 73us);
  EXPECT_EQ(P.limit("k"), 3u);
  Record(5, Judge, 60us);
  EXPECT_EQ(P.limit("k"), 3u);
  // Only the first SamplesKept drains count: once 3 has them, longer ones
  // change nothing.
  Record(3, PromptModel::SamplesKept - Judge, 70us);
  Record(3, 3 * PromptModel::SamplesKept, 200us);
  EXPECT_EQ(P.limit("k"), 3u);
}

TEST(SchedulerPolicy, PtbWidthHoldsToTheMostWorkersPerSmItsPausesAllow) {
  DeviceFacts D = smallDevice();
  // 8-warp workers: the device's limits allow 2 per SM as prompt; blocks of
  // 30 us at 2, 40 at 3, 50 at 4 and 90 at the full 8.
  std::map<uint32_t, Nanos> Measured{
      {2, 30us}, {3, 40us}, {4, 50us}, {8, 90us}};
  BlockDurations Blocks(Measured, 10us);
  auto Choose = [&](uint32_t Limit) {
    return chooseWidth(D, shape(10000, 256), Blocks, 8, 100us, 2, 0us,
                       std::nullopt, Limit);
  };
  EXPECT_EQ(Choose(0).BlocksPerSm, 2u);
  EXPECT_EQ(Choose(1).BlocksPerSm, 2u); // never below the device's limits
  // Nor past twice them (DeviceFacts::PromptClimbTimesLimits), whatever the
  // pauses allow: 8's blocks would keep the bound too. The rest of the test
  // lifts that cap.
  EXPECT_EQ(Choose(8).BlocksPerSm, 2 * 2u);
  D.PromptClimbTimesLimits = 0;
  WidthChoice W = Choose(4);
  EXPECT_EQ(W.Width, 32u);
  EXPECT_EQ(W.BlocksPerSm, 4u);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 50us);
  EXPECT_TRUE(W.MeetsBound);
  // One step past what was measured: the nearest estimate (50 us at 4).
  EXPECT_EQ(Choose(5).BlocksPerSm, 5u);
  // A limit of every worker drops the crowded SM's second block from the
  // full width's drain: 7 + 90 us keeps the bound.
  W = Choose(8);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 90us);
  // Where the limit's blocks miss the bound, the most that keep it: not 5,
  // judged by the fuller of its two nearest estimates (7 + 95 us), but 4.
  Measured[8] = 120us;
  Measured[6] = 95us;
  EXPECT_EQ(Choose(8).BlocksPerSm, 4u);
  Measured[5] = 90us;
  EXPECT_EQ(Choose(8).BlocksPerSm, 5u);
}

TEST(SchedulerPolicy, PtbClaimChunkHoldsAtEitherWidth) {
  DeviceFacts D = smallDevice();
  // 20 us of work per claim. Blocks of 4 us at the prompt occupancy would
  // be claimed five at a time, those of 12 us at full occupancy two at a
  // time. A launch keeps its chunk across pauses and resumes at the other
  // width, so both widths get the smaller: the full width then drains in
  // 7 + 2 x 12 + 60 us, within 100 us, where five blocks would take 127.
  std::map<uint32_t, Nanos> Measured{{2, 4us}, {8, 12us}};
  BlockDurations Blocks(Measured, 10us);
  WidthChoice W = chooseWidth(D, shape(10000, 256), Blocks, 8, 100us, 2, 20us);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.ClaimChunk, 2u);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 24us + D.CrowdedExtraDrain);
  // Full blocks too long for the bound: the prompt width, still claiming
  // what the full width could hold in time.
  Measured[8] = 40us;
  W = chooseWidth(D, shape(10000, 256), Blocks, 8, 100us, 2, 20us);
  EXPECT_EQ(W.Width, 16u);
  EXPECT_EQ(W.ClaimChunk, 1u);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 4us);
}

TEST(SchedulerPolicy, PtbWidthLeavesReserveWhenBlocksAreTooLong) {
  DeviceFacts D = smallDevice();
  // 200 us blocks miss 100 us whatever the width: 2 SMs stay free for LC
  // work, and the rest run prompt SMs (2 workers of 8 warps), so that LC
  // work needing every SM waits for one block, not more.
  WidthChoice W = chooseWidth(D, shape(10000, 256), 200us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.Width, 12u); // 6 of 8 SMs
  EXPECT_EQ(W.ExpectedLatency, 0us);
  EXPECT_TRUE(W.MeetsBound);
  // Nothing vacated: the hardware spreads the 12 workers over all 8 SMs.
  EXPECT_EQ(W.BlocksPerSm, 2u);
  // No SM left to spare: run narrow and say the bound is missed.
  WidthChoice Narrow = chooseWidth(D, shape(10000, 256), 200us, 2, 100us, 2, 0us);
  EXPECT_EQ(Narrow.Width, 2u);
  EXPECT_EQ(Narrow.BlocksPerSm, 1u);
  EXPECT_EQ(Narrow.ExpectedLatency, D.SignalLatency + 200us);
  EXPECT_FALSE(Narrow.MeetsBound);
}

TEST(SchedulerPolicy, PtbWidthUsesEverySmWhenNoneCanBeKeptForLcWork) {
  DeviceFacts D = smallDevice();
  // 200 us blocks miss 100 us whatever the width. LC work that needs every
  // SM (a reserve of the whole device), or no reserve at all, leaves no SM
  // worth keeping idle: prompt SMs (2 workers of 8 warps) on all 8, so that
  // such LC work waits for one block; the bound is reported missed.
  for (uint32_t Reserve : {0u, 8u}) {
    WidthChoice W =
        chooseWidth(D, shape(10000, 256), 200us, 8, 100us, Reserve, 0us);
    EXPECT_EQ(W.Width, 16u) << Reserve;
    EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 200us) << Reserve;
    EXPECT_FALSE(W.MeetsBound) << Reserve;
  }
  // Where SMs can be vacated, the SMs that LC work holds stay vacated.
  D.CanVacate = true;
  WidthChoice W = chooseWidth(D, shape(10000, 256), 200us, 6, 100us, 8, 0us);
  EXPECT_EQ(W.Width, 12u);
  EXPECT_EQ(W.VacatedSms, 2u);
}

TEST(SchedulerPolicy, VacatingDeviceSpreadsWorkersAndVacatesLowSms) {
  DeviceFacts D = smallDevice();
  D.CanVacate = true;
  // Short blocks, 6 SMs free: workers for all 8 SMs (the hardware spreads
  // them), and the 2 low SMs vacated.
  WidthChoice W = chooseWidth(D, shape(10000, 256), 10us, 6, 100us, 2, 0us);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.VacatedSms, 2u);
  EXPECT_EQ(W.BlocksPerSm, 8u); // on each of the 6 kept SMs
  EXPECT_EQ(chooseWidth(D, shape(10000, 256), 10us, 8, 100us, 2, 0us).VacatedSms,
            0u);
  // Long blocks: the reserve counts the SMs LC work already holds, instead
  // of coming on top of them.
  // Prompt workers are counted for the kept SMs only: were the vacated ones
  // busy, the hardware would put them all on the kept ones.
  W = chooseWidth(D, shape(10000, 256), 200us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.Width, 12u); // prompt: 2 workers on each of 6 SMs
  EXPECT_EQ(W.VacatedSms, 2u);
  EXPECT_EQ(W.ExpectedLatency, 0us);
  W = chooseWidth(D, shape(10000, 256), 200us, 5, 100us, 2, 0us);
  EXPECT_EQ(W.VacatedSms, 3u);
  EXPECT_EQ(W.BlocksPerSm, 2u); // prompt workers on each kept SM
  // At least one SM is kept.
  EXPECT_EQ(chooseWidth(D, shape(10000, 256), 10us, 0, 100us, 2, 0us).VacatedSms,
            7u);
  // Space sharing costs no relaunch, so any LC kernel short of the device
  // shares it.
  KernelShape Lc = shape(16, 256);
  EXPECT_EQ(chooseSharing(D, Lc, 1us, 500us).How, Sharing::Space);
  EXPECT_EQ(chooseSharing(D, Lc, 1us, 500us).Sms, 2u);
  D.CanVacate = false;
  EXPECT_EQ(chooseSharing(D, Lc, 1us, 500us).How, Sharing::Time);
}

TEST(SchedulerPolicy, OneBlockPerWorkerIsOneWaveOfSingleClaims) {
  DeviceFacts D = smallDevice();
  D.CanVacate = true;
  Nanos Any = Nanos::max();
  // 48 blocks of a kernel that fits 64 at once: a worker for each.
  KernelShape OneWave = shape(48, 256);
  WidthChoice W = chooseWidth(D, OneWave, 300us, 8, Any, 2, 0us);
  ASSERT_EQ(W.Width, 48u);
  EXPECT_TRUE(isOneBlockPerWorker(OneWave, W));
  // More blocks than fit at once: workers take several.
  KernelShape TwoWaves = shape(100, 256);
  EXPECT_FALSE(isOneBlockPerWorker(
      TwoWaves, chooseWidth(D, TwoWaves, 300us, 8, Any, 2, 0us)));
  // A launch that leaves SMs to LC work is not one wave of its blocks.
  W = chooseWidth(D, OneWave, 10us, 6, 100us, 2, 0us);
  ASSERT_EQ(W.VacatedSms, 2u);
  EXPECT_FALSE(isOneBlockPerWorker(OneWave, W));
  // Nor are fewer workers than blocks, nor slices.
  D.CanVacate = false;
  W = chooseWidth(D, OneWave, 300us, 8, 100us, 2, 0us);
  ASSERT_LT(W.Width, 48u);
  EXPECT_FALSE(isOneBlockPerWorker(OneWave, W));
  KernelShape NoPtb = shape(48, 256, /*Ptb=*/false);
  EXPECT_FALSE(
      isOneBlockPerWorker(NoPtb, chooseWidth(D, NoPtb, 300us, 8, Any, 2, 0us)));
}

TEST(SchedulerPolicy, ShortBlocksAreClaimedSeveralAtOnce) {
  DeviceFacts D = smallDevice();
  // 20 us of work per claim: 2 us blocks go ten at a time, blocks of the
  // interval or longer one at a time, and tiny ones stop at the ABI's cap.
  EXPECT_EQ(chooseClaimChunk(D, 2us, 20us, 1s), 10u);
  EXPECT_EQ(chooseClaimChunk(D, 3us, 20us, 1s), 7u); // rounded up
  EXPECT_EQ(chooseClaimChunk(D, 20us, 20us, 1s), 1u);
  EXPECT_EQ(chooseClaimChunk(D, 50us, 20us, 1s), 1u);
  EXPECT_EQ(chooseClaimChunk(D, 100ns, 20us, 1s), BATON_MAX_CLAIM_CHUNK);
  EXPECT_EQ(chooseClaimChunk(D, 2us, 0us, 1s), 1u);
  EXPECT_EQ(chooseClaimChunk(D, 2us, 20us, Nanos::max()), 10u);
}

TEST(SchedulerPolicy, ClaimChunkKeepsTwoClaimsWithinTheBound) {
  DeviceFacts D = smallDevice(); // signal 7 us
  // 2 * 5 * 2 us + 7 us <= 30 us; six blocks would not be.
  EXPECT_EQ(chooseClaimChunk(D, 2us, 20us, 30us), 5u);
  // No room for even two blocks: one per claim, as without chunks.
  EXPECT_EQ(chooseClaimChunk(D, 2us, 20us, 8us), 1u);
}

TEST(SchedulerPolicy, PtbWidthCountsTheClaimAsTheBlockAWorkerHolds) {
  DeviceFacts D = smallDevice();
  // 5 us blocks, 20 us per claim: 4 blocks held, so the crowded SM's drain
  // is signal + claim + the crowded extra.
  WidthChoice W = chooseWidth(D, shape(10000, 64), 5us, 8, 100us, 2, 20us);
  EXPECT_EQ(W.ClaimChunk, 4u);
  EXPECT_EQ(W.Width, 32u * 8);
  EXPECT_EQ(W.ExpectedLatency, D.SignalLatency + 20us + D.CrowdedExtraDrain);
  // Without chunks the same launch holds one block.
  W = chooseWidth(D, shape(10000, 64), 5us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.ClaimChunk, 1u);
}

TEST(SchedulerPolicy, CoveringSharesHoldWhatTheBoundAllows) {
  DeviceFacts D = smallDevice(); // signal 7 us, crowded drain 60 us
  // 10 us blocks at the full, crowded width: 7 + 10 s + max(10 s, 60) us
  // within 100 us up to s = 3 blocks, where a claim holds one.
  WidthChoice W = chooseWidth(D, shape(10000, 256), 10us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.ClaimChunk, 1u);
  EXPECT_EQ(W.CoveringShareLimit, 3u);
  // The prompt width judges its own blocks, without the crowded drain:
  // 7 + 30 s within 100 us up to s = 3.
  std::map<uint32_t, Nanos> Measured{{2, 30us}, {8, 90us}};
  W = chooseWidth(D, shape(10000, 256), BlockDurations(Measured, 10us), 8,
                  100us, 2, 0us);
  EXPECT_EQ(W.Width, 16u);
  EXPECT_EQ(W.CoveringShareLimit, 3u);
  // Without a prompt-claim limit an SM drains in 7 + 10 s us: 9 blocks;
  // never more than the ABI's largest claim.
  D.PromptClaimWorkersPerSm = D.PromptClaimWarpsPerSm = 0;
  EXPECT_EQ(chooseWidth(D, shape(10000, 256), 10us, 8, 100us, 2, 0us)
                .CoveringShareLimit,
            9u);
  EXPECT_EQ(chooseWidth(D, shape(10000, 256), 1us, 8, 1s, 2, 0us)
                .CoveringShareLimit,
            BATON_MAX_CLAIM_CHUNK);
  // A claim leaves room for a second claim after the signal (4 blocks);
  // a share, which no claim follows, may hold all 9.
  W = chooseWidth(D, shape(10000, 256), 10us, 8, 100us, 2, 90us);
  EXPECT_EQ(W.ClaimChunk, 4u);
  EXPECT_EQ(W.CoveringShareLimit, 9u);
  // While quiet the scheduler lifts the width's bound, not the shares'.
  W = chooseWidth(D, shape(10000, 256), 10us, 8, Nanos::max(), 2, 0us, 100us);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.CoveringShareLimit, 9u);
  // Blocks whose claim alone misses the shares' bound: shares of a claim.
  W = chooseWidth(D, shape(10000, 256), 150us, 8, Nanos::max(), 2, 0us,
                  100us);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.CoveringShareLimit, 1u);
  // Blocks too long for the bound: the reserve, and no larger shares.
  D = smallDevice();
  W = chooseWidth(D, shape(10000, 256), 300us, 8, 100us, 2, 0us);
  EXPECT_LT(W.Width, 64u);
  EXPECT_EQ(W.CoveringShareLimit, 0u);
  // Blocks only assumed (a kernel never measured): the width and the claim
  // as for measured ones, shares of a claim.
  W = chooseWidth(D, shape(10000, 256), BlockDurations::assumed(10us), 8,
                  100us, 2, 20us);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.ClaimChunk, 2u);
  EXPECT_EQ(W.CoveringShareLimit, 2u);
  // Blocks measured at 2 per SM only stand in for the full width's, but
  // do not size its shares; measured at 8 per SM they do (as the first
  // case: 3).
  std::map<uint32_t, Nanos> AtTwo{{2, 10us}}, AtEight{{8, 10us}};
  W = chooseWidth(D, shape(10000, 256), BlockDurations(AtTwo, 10us), 8,
                  100us, 2, 0us);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.CoveringShareLimit, 1u);
  W = chooseWidth(D, shape(10000, 256), BlockDurations(AtEight, 10us), 8,
                  100us, 2, 0us);
  EXPECT_EQ(W.Width, 64u);
  EXPECT_EQ(W.CoveringShareLimit, 3u);
}

TEST(SchedulerPolicy, SliceSizeKeepsTheWindowWithinTheBound) {
  DeviceFacts D = smallDevice(); // SliceWindow 2
  KernelShape K = shape(10000, 256, /*Ptb=*/false);
  // Wave = 64 blocks of 10 us; 2 slices in flight; 100 us allow 5 waves.
  WidthChoice W = chooseWidth(D, K, 10us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.LaunchForm, Form::Slices);
  EXPECT_EQ(W.Width, 5u * 64);
  EXPECT_EQ(W.ExpectedLatency, 100us);
  EXPECT_TRUE(W.MeetsBound);
  // Longer blocks: one wave per slice, which still misses the bound.
  WidthChoice Long = chooseWidth(D, K, 80us, 8, 100us, 2, 0us);
  EXPECT_EQ(Long.Width, 64u);
  EXPECT_FALSE(Long.MeetsBound);
}

TEST(SchedulerPolicy, KernelsWithoutVariantsRunWhole) {
  KernelShape K = shape(100, 256, false);
  K.HasSlice = false;
  WidthChoice W = chooseWidth(smallDevice(), K, 10us, 8, 100us, 2, 0us);
  EXPECT_EQ(W.LaunchForm, Form::Original);
  EXPECT_EQ(W.Width, 100u);
  EXPECT_FALSE(W.MeetsBound);
}

} // namespace
