//===- RegisterBudgetTest.cpp - Registers that keep the occupancy ---------===//
#include "baton/Transform/RegisterBudget.h"

#include <gtest/gtest.h>

using namespace baton;

namespace {

SmLimits hopper() { return *smLimits(90); }

TEST(RegisterBudgetTest, ResidentBlocksFollowTheOccupancyCalculator) {
  SmLimits L = hopper();
  BlockShape Warps4{128, 0};
  // Up to 32 registers, 16 blocks of 128 threads fill the SM's 64 warps.
  EXPECT_EQ(residentPerSm(L, 26, Warps4), 16u);
  EXPECT_EQ(residentPerSm(L, 32, Warps4), 16u);
  // 40 registers: 1280 per warp, 12 warps per sub-partition, 12 blocks.
  EXPECT_EQ(residentPerSm(L, 36, Warps4), 12u);
  EXPECT_EQ(residentPerSm(L, 40, Warps4), 12u);
  // Shared memory bounds blocks too, with the driver's 1 KiB per block.
  EXPECT_EQ(residentPerSm(L, 26, {128, 100 * 1024}), 2u);
  // A block of 1024 threads needs all 65536 registers at 64 per thread.
  EXPECT_EQ(residentPerSm(L, 64, {1024, 0}), 1u);
  EXPECT_EQ(residentPerSm(L, 72, {1024, 0}), 0u);
  EXPECT_EQ(residentPerSm(L, 256, Warps4), 0u);
  // An unknown block size counts warps.
  EXPECT_EQ(residentPerSm(L, 32, {std::nullopt, 0}), 64u);
  EXPECT_EQ(residentPerSm(L, 40, {std::nullopt, 0}), 48u);
}

TEST(RegisterBudgetTest, BudgetIsTheLargestCountAtTheOriginalsOccupancy) {
  SmLimits L = hopper();
  // Triton's vector_add: 26 registers, its PTB variant 36 without a limit.
  EXPECT_EQ(registerBudget(L, 26, {128, 0}), 32u);
  EXPECT_EQ(registerBudget(L, 32, {128, 0}), 32u);
  // 36 rounds to 40 already; 48 registers would fit 10 blocks, not 12.
  EXPECT_EQ(registerBudget(L, 36, {128, 0}), 40u);
  EXPECT_EQ(registerBudget(L, 36, {std::nullopt, 0}), 40u);
  // 8 warps: 26 registers fit 8 blocks; so do 32, not 40 (6 blocks).
  EXPECT_EQ(registerBudget(L, 26, {256, 0}), 32u);
  // 1024 threads: never past the count at which the block no longer fits.
  EXPECT_EQ(registerBudget(L, 40, {1024, 0}), 64u);
}

TEST(RegisterBudgetTest, NoBudgetWhenRegistersDoNotBindOrNothingFits) {
  SmLimits L = hopper();
  // Shared memory holds a matmul to one block: any count up to 255 fits.
  EXPECT_EQ(registerBudget(L, 168, {128, 200 * 1024}), std::nullopt);
  // Two blocks of 100 KiB: even 255 registers fit two blocks of 128
  // threads; blocks of 512 threads fit one, up to 128 registers.
  EXPECT_EQ(registerBudget(L, 90, {128, 100 * 1024}), std::nullopt);
  EXPECT_EQ(registerBudget(L, 90, {512, 100 * 1024}), 128u);
  // The original itself does not fit.
  EXPECT_EQ(registerBudget(L, 80, {1024, 0}), std::nullopt);
}

TEST(RegisterBudgetTest, LimitsPerArchitecture) {
  ASSERT_TRUE(smLimits(80));
  EXPECT_EQ(smLimits(80)->MaxWarps, 64u);
  ASSERT_TRUE(smLimits(89));
  EXPECT_EQ(smLimits(89)->MaxWarps, 48u);
  EXPECT_EQ(smLimits(89)->MaxBlocks, 24u);
  ASSERT_TRUE(smLimits(121));
  EXPECT_EQ(smLimits(121)->MaxWarps, smLimits(120)->MaxWarps);
  EXPECT_EQ(smLimits(121)->SharedBytes, smLimits(120)->SharedBytes);
  EXPECT_FALSE(smLimits(42));
  EXPECT_FALSE(smLimits(110)); // Thor's warps per SM are not published here
  // Fewer warps per SM, so 26 registers no longer bind on sm_89 at 40.
  EXPECT_EQ(registerBudget(*smLimits(89), 26, {128, 0}), 40u);
}

TEST(RegisterBudgetTest, DeclaredShapeReadsReqntidAndStaticShared) {
  KernelFacts F;
  EXPECT_FALSE(declaredShape(F).Threads);
  F.ReqNTid = {32, 4, 2};
  F.StaticSharedBytes = 4096;
  BlockShape S = declaredShape(F);
  EXPECT_EQ(S.Threads, 256u);
  EXPECT_EQ(S.SharedBytes, 4096u);
}

TEST(RegisterBudgetTest, BudgetsForKnowsOnlyTheCountedKernels) {
  auto Budget = budgetsFor(hopper(), RegisterCounts{{"k", 26}});
  KernelFacts F;
  F.ReqNTid = {128, 1, 1};
  EXPECT_EQ(Budget("k", F), 32u);
  EXPECT_EQ(Budget("other", F), std::nullopt);
}

} // namespace
