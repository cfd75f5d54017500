//===- StreamPoolTest.cpp - Streams made only while no launch is in flight ===//
//
// The pool against stand-in streams (no GPU): when it may create streams
// (a reserve for launches, one for a stream its owner keeps), that
// launches give theirs back to the right priority, the nearest priority
// when the asked one has none free, and the error when none is free while
// launches are in flight.
//
//===----------------------------------------------------------------------===//

#include "StreamPool.h"

#include "baton/Runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>

using namespace baton;
using namespace baton::detail;

namespace {

/// Stand-in streams: distinct non-null handles, with the priority each was
/// made for.
std::map<CUstream, int> Made;
std::set<CUstream> Destroyed;

CUstream makeFake(int Priority) {
  auto *S = reinterpret_cast<CUstream>(uintptr_t(0x1000 + 16 * Made.size()));
  Made.emplace(S, Priority);
  return S;
}
void destroyFake(CUstream S) { Destroyed.insert(S); }

class StreamPoolTest : public ::testing::Test {
protected:
  void SetUp() override {
    Made.clear();
    Destroyed.clear();
  }
  StreamPool Pool{2, StreamMaker{makeFake, destroyFake}};
};

/// Holds one launch in flight for its scope.
struct InFlight {
  InFlight() { LaunchesInFlight::add(); }
  ~InFlight() { LaunchesInFlight::remove(); }
};

TEST_F(StreamPoolTest, MakesTheReserveOnlyWhileNothingIsInFlight) {
  Pool.prepare(0);
  EXPECT_EQ(Made.size(), 2u);
  CUstream A, B;
  {
    InFlight Launch;
    A = Pool.acquire(0, "a");
    B = Pool.acquire(0, "b");
    Pool.prepare(0); // none free, but a launch is in flight
    EXPECT_EQ(Made.size(), 2u);
  }
  // Nothing in flight, both streams still out (a scheduler's queue streams
  // stay out): the reserve is made free again.
  Pool.prepare(0);
  EXPECT_EQ(Made.size(), 4u);
  Pool.release(A);
  Pool.release(B);
  Pool.prepare(0); // four free: nothing to make
  EXPECT_EQ(Made.size(), 4u);
}

TEST_F(StreamPoolTest, ReleasedStreamsAreHandedOutAgain) {
  Pool.prepare(0);
  InFlight Launch;
  CUstream A = Pool.acquire(0, "a");
  CUstream B = Pool.acquire(0, "b");
  EXPECT_NE(A, B);
  Pool.release(A);
  EXPECT_EQ(Pool.acquire(0, "c"), A);
  EXPECT_EQ(Made.size(), 2u);
}

TEST_F(StreamPoolTest, NoneFreeWhileLaunchesAreInFlightIsAClearError) {
  Pool.prepare(0);
  InFlight Launch;
  Pool.acquire(0, "a");
  Pool.acquire(0, "b");
  try {
    Pool.acquire(0, "k");
    FAIL() << "a third stream was handed out";
  } catch (const Error &E) {
    EXPECT_EQ(E.kind(), ErrorKind::InvalidState);
    std::string What = E.what();
    EXPECT_NE(What.find("the launch of 'k'"), std::string::npos) << What;
    EXPECT_NE(What.find("RuntimeOptions::PrivateStreams (now 2)"),
              std::string::npos)
        << What;
  }
  EXPECT_EQ(Made.size(), 2u);
}

TEST_F(StreamPoolTest, AStreamKeptByItsOwnerIsMadeAlone) {
  CUstream Queue = Pool.acquireLasting(-5); // a scheduler's queue stream
  EXPECT_EQ(Made.size(), 1u);
  EXPECT_EQ(Made.at(Queue), -5);
  InFlight Launch; // none free, and none may be made now
  try {
    Pool.acquireLasting(-5);
    FAIL() << "a stream was handed out with none free";
  } catch (const Error &E) {
    EXPECT_NE(std::string(E.what()).find("the scheduler's queues"),
              std::string::npos)
        << E.what();
  }
}

TEST_F(StreamPoolTest, TakesTheNearestPriorityAndGivesItBackThere) {
  Pool.prepare(0);
  Pool.prepare(-5);
  InFlight Launch;
  // -2 has no streams and none may be made: 0 is nearer than -5.
  CUstream S = Pool.acquire(-2, "a");
  EXPECT_EQ(Made.at(S), 0);
  CUstream T = Pool.acquire(-4, "b");
  EXPECT_EQ(Made.at(T), -5);
  Pool.release(S);
  Pool.release(T);
  // Back under their own priorities: two of each are free again.
  EXPECT_EQ(Made.at(Pool.acquire(0, "c")), 0);
  EXPECT_EQ(Made.at(Pool.acquire(0, "d")), 0);
  EXPECT_EQ(Made.at(Pool.acquire(-5, "e")), -5);
  EXPECT_EQ(Made.at(Pool.acquire(-5, "f")), -5);
  EXPECT_EQ(Made.size(), 4u);
}

TEST_F(StreamPoolTest, DestroysEveryStreamItMade) {
  Pool.prepare(0);
  {
    InFlight Launch;
    Pool.acquire(0, "held"); // held by a launch that went away
  }
  Pool.destroyAll();
  EXPECT_EQ(Destroyed.size(), Made.size());
}

} // namespace
