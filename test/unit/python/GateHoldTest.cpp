//===- GateHoldTest.cpp - When the bypass gate's word is set --------------===//
//
// GateHold (python/src/GateHold.h) on the host alone: the word follows
// holds and releases while the gate is on, clears at the bound, and a
// restart within an old hold does not set it again.
//
//===----------------------------------------------------------------------===//
#include "GateHold.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace baton::python;
using namespace std::chrono_literals;

namespace {

struct GateHoldTest : ::testing::Test {
  std::atomic<uint32_t> Word{7}; // neither 0 nor 1 until first written
  GateHold Hold{[this](uint32_t V) { Word = V; }};

  /// Waits, at most \p Limit, for the word to become \p V.
  bool becomes(uint32_t V, std::chrono::milliseconds Limit = 5s) {
    auto Deadline = std::chrono::steady_clock::now() + Limit;
    while (Word != V && std::chrono::steady_clock::now() < Deadline)
      std::this_thread::sleep_for(1ms);
    return Word == V;
  }
};

TEST_F(GateHoldTest, OffNeverSetsTheWord) {
  Hold.hold();
  EXPECT_NE(Word, 1u);
  EXPECT_EQ(Hold.holds(), 0u);
  Hold.release();
  EXPECT_EQ(Word, 0u);
}

TEST_F(GateHoldTest, HoldSetsTheWordAndReleaseClearsIt) {
  Hold.turnOn();
  EXPECT_EQ(Word, 0u);
  Hold.hold();
  EXPECT_EQ(Word, 1u);
  Hold.release();
  EXPECT_EQ(Word, 0u);
  EXPECT_EQ(Hold.holds(), 1u);
  EXPECT_EQ(Hold.expired(), 0u);
}

TEST_F(GateHoldTest, AHoldEndsAtItsBound) {
  Hold.setMaxHold(20ms);
  Hold.turnOn();
  auto Start = std::chrono::steady_clock::now();
  Hold.hold();
  EXPECT_EQ(Word, 1u);
  ASSERT_TRUE(becomes(0));
  EXPECT_GE(std::chrono::steady_clock::now() - Start, 20ms);
  EXPECT_EQ(Hold.expired(), 1u);
  Hold.release();
  EXPECT_EQ(Word, 0u);
  EXPECT_EQ(Hold.expired(), 1u);
}

TEST_F(GateHoldTest, ANewHoldStartsANewBound) {
  Hold.setMaxHold(1000ms);
  Hold.turnOn();
  Hold.hold();
  std::this_thread::sleep_for(600ms);
  Hold.release();
  Hold.hold();
  std::this_thread::sleep_for(600ms); // 1.2 s after the first hold
  EXPECT_EQ(Word, 1u);
  EXPECT_EQ(Hold.expired(), 0u);
  ASSERT_TRUE(becomes(0));
  EXPECT_EQ(Hold.expired(), 1u);
}

TEST_F(GateHoldTest, ARestartWithinABracketPastTheBoundLeavesTheWordClear) {
  Hold.setMaxHold(20ms);
  Hold.turnOn();
  Hold.hold();
  Hold.turnOff();
  EXPECT_EQ(Word, 0u);
  std::this_thread::sleep_for(100ms); // the bound passes while off
  Hold.turnOn();
  EXPECT_EQ(Word, 0u);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(Word, 0u);
  EXPECT_EQ(Hold.expired(), 0u); // not counted while off
  Hold.release();
  Hold.hold(); // the next bracket holds again
  EXPECT_EQ(Word, 1u);
}

TEST_F(GateHoldTest, ARestartWithinTheBoundHoldsAgain) {
  Hold.setMaxHold(10s);
  Hold.turnOn();
  Hold.hold();
  Hold.turnOff();
  EXPECT_EQ(Word, 0u);
  Hold.turnOn();
  EXPECT_EQ(Word, 1u);
  Hold.release();
  EXPECT_EQ(Word, 0u);
}

} // namespace
