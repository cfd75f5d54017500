//===- ShortRunsTest.cpp - Short kernels the bypass gate lets through -----===//
//
// ShortRuns (python/src/ShortRuns.h): short kernels go without a wait
// until their run on a stream would pass the budget, each stream on its
// own; a wait restarts the run, and a stream with no wait since the last
// clear() needs one first.
//
//===----------------------------------------------------------------------===//
#include "ShortRuns.h"

#include <gtest/gtest.h>

using namespace baton::python;

namespace {

const void *const StreamA = reinterpret_cast<const void *>(0x10);
const void *const StreamB = reinterpret_cast<const void *>(0x20);

/// A short kernel of \p Us launched as the gate launches it: true if it
/// got a wait in front.
bool launchShort(ShortRuns &Runs, const void *Stream, double Us) {
  if (Runs.fits(Stream, Us)) {
    Runs.ranShort(Stream, Us);
    return false;
  }
  Runs.waited(Stream, Us);
  return true;
}

TEST(ShortRunsTest, AStreamNeedsAWaitFirst) {
  ShortRuns Runs(100);
  EXPECT_TRUE(launchShort(Runs, StreamA, 10));
  EXPECT_FALSE(launchShort(Runs, StreamA, 10));
}

TEST(ShortRunsTest, ShortKernelsGoUnwaitedUpToTheBudget) {
  ShortRuns Runs(100);
  Runs.waited(StreamA, 0); // an unknown kernel behind a wait
  EXPECT_FALSE(launchShort(Runs, StreamA, 40));
  EXPECT_FALSE(launchShort(Runs, StreamA, 60)); // exactly the budget
  EXPECT_TRUE(launchShort(Runs, StreamA, 1));   // one more: a wait first
  // The run restarted with that kernel: 1 + 99 fits, 1 more does not.
  EXPECT_FALSE(launchShort(Runs, StreamA, 99));
  EXPECT_TRUE(launchShort(Runs, StreamA, 1));
}

TEST(ShortRunsTest, StreamsRunApart) {
  ShortRuns Runs(100);
  Runs.waited(StreamA, 0);
  Runs.waited(StreamB, 0);
  EXPECT_FALSE(launchShort(Runs, StreamA, 80));
  EXPECT_FALSE(launchShort(Runs, StreamB, 80));
  EXPECT_TRUE(launchShort(Runs, StreamA, 30));
  EXPECT_TRUE(launchShort(Runs, StreamB, 30));
}

TEST(ShortRunsTest, AWaitBeforeAnUnknownKernelRestartsTheRun) {
  ShortRuns Runs(100);
  Runs.waited(StreamA, 0);
  EXPECT_FALSE(launchShort(Runs, StreamA, 90));
  Runs.waited(StreamA, 0);
  EXPECT_FALSE(launchShort(Runs, StreamA, 90));
  EXPECT_TRUE(launchShort(Runs, StreamA, 90));
}

TEST(ShortRunsTest, ClearForgetsEveryStream) {
  ShortRuns Runs(100);
  Runs.waited(StreamA, 0);
  EXPECT_TRUE(Runs.fits(StreamA, 50));
  Runs.clear(); // the gate restarted: what was queued meanwhile is unknown
  EXPECT_FALSE(Runs.fits(StreamA, 50));
}

TEST(ShortRunsTest, AZeroBudgetWaitsBeforeEveryShortKernel) {
  ShortRuns Runs(0);
  EXPECT_TRUE(launchShort(Runs, StreamA, 5));
  EXPECT_TRUE(launchShort(Runs, StreamA, 5));
  Runs.setBudget(10);
  EXPECT_EQ(Runs.budget(), 10);
  EXPECT_FALSE(launchShort(Runs, StreamA, 5)); // 5 + 5 fits now
  EXPECT_TRUE(launchShort(Runs, StreamA, 5));
}

} // namespace
