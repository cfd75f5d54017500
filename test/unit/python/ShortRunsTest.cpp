//===- ShortRunsTest.cpp - Short kernels the bypass gate lets through -----===//
//
// ShortRuns (python/src/ShortRuns.h): short kernels go without a wait
// until their run on a stream would pass the budget, each stream on its
// own, and a gated kernel starts a new run.
//
//===----------------------------------------------------------------------===//
#include "ShortRuns.h"

#include <gtest/gtest.h>

using namespace baton::python;

namespace {

const void *const StreamA = reinterpret_cast<const void *>(0x10);
const void *const StreamB = reinterpret_cast<const void *>(0x20);

TEST(ShortRunsTest, ShortKernelsGoUnwaitedUpToTheBudget) {
  ShortRuns Runs(100);
  EXPECT_FALSE(Runs.shortLaunch(StreamA, 40));
  EXPECT_FALSE(Runs.shortLaunch(StreamA, 60)); // exactly the budget
  EXPECT_TRUE(Runs.shortLaunch(StreamA, 1));   // one more: a wait first
  // The run restarted with that kernel: 1 + 99 fits, 1 more does not.
  EXPECT_FALSE(Runs.shortLaunch(StreamA, 99));
  EXPECT_TRUE(Runs.shortLaunch(StreamA, 1));
}

TEST(ShortRunsTest, StreamsRunApart) {
  ShortRuns Runs(100);
  EXPECT_FALSE(Runs.shortLaunch(StreamA, 80));
  EXPECT_FALSE(Runs.shortLaunch(StreamB, 80));
  EXPECT_TRUE(Runs.shortLaunch(StreamA, 30));
  EXPECT_TRUE(Runs.shortLaunch(StreamB, 30));
}

TEST(ShortRunsTest, AGatedKernelStartsANewRun) {
  ShortRuns Runs(100);
  EXPECT_FALSE(Runs.shortLaunch(StreamA, 90));
  Runs.gatedLaunch(StreamA);
  EXPECT_FALSE(Runs.shortLaunch(StreamA, 90));
  EXPECT_TRUE(Runs.shortLaunch(StreamA, 90));
}

TEST(ShortRunsTest, AZeroBudgetWaitsBeforeEveryShortKernel) {
  ShortRuns Runs(0);
  EXPECT_TRUE(Runs.shortLaunch(StreamA, 5));
  EXPECT_TRUE(Runs.shortLaunch(StreamA, 5));
  Runs.setBudget(10);
  EXPECT_EQ(Runs.budget(), 10);
  EXPECT_FALSE(Runs.shortLaunch(StreamA, 5)); // 5 + 5 fits now
  EXPECT_TRUE(Runs.shortLaunch(StreamA, 5));
}

} // namespace
