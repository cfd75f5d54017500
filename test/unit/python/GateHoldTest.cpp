//===- GateHoldTest.cpp - When the bypass gate's word is set --------------===//
//
// GateHold (python/src/GateHold.h) on the host alone: the word follows
// holds and releases while the gate is on, clears at the bound, and a
// restart within an old hold does not set it again; the gate stops
// listening when idle and listens again before the next hold sets the
// word.
//
//===----------------------------------------------------------------------===//
#include "GateHold.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace baton::python;
using namespace std::chrono_literals;

namespace {

struct GateHoldTest : ::testing::Test {
  std::atomic<uint32_t> Word{7}; // neither 0 nor 1 until first written
  /// What the callbacks did, in order: "word 0", "listen", "deaf".
  std::mutex EventsMutex;
  std::vector<std::string> Log;
  std::atomic<int> FailedListens{0}; ///< listen(true)s to fail, first
  std::atomic<int> FailedDeafs{0};   ///< listen(false)s to fail, first
  GateHold Hold{[this](uint32_t V) {
                  Word = V;
                  note("word " + std::to_string(V));
                },
                [this](bool Listen) {
                  if (Listen && FailedListens > 0) {
                    --FailedListens;
                    note("listen failed");
                    return false;
                  }
                  if (!Listen && FailedDeafs > 0) {
                    --FailedDeafs;
                    note("deaf failed");
                    return false;
                  }
                  note(Listen ? "listen" : "deaf");
                  return true;
                }};

  void note(std::string E) {
    std::lock_guard Lock(EventsMutex);
    Log.push_back(std::move(E));
  }
  std::vector<std::string> events() {
    std::lock_guard Lock(EventsMutex);
    return Log;
  }
  void forget() {
    std::lock_guard Lock(EventsMutex);
    Log.clear();
  }
  /// Waits, at most \p Limit, for the gate to stop listening.
  bool sleeps(std::chrono::milliseconds Limit = 5s) {
    auto Deadline = std::chrono::steady_clock::now() + Limit;
    while (Hold.state().Listening &&
           std::chrono::steady_clock::now() < Deadline)
      std::this_thread::sleep_for(1ms);
    return !Hold.state().Listening;
  }

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
  EXPECT_EQ(Hold.state().Holds, 0u);
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
  EXPECT_EQ(Hold.state().Holds, 1u);
  EXPECT_EQ(Hold.state().Expired, 0u);
}

TEST_F(GateHoldTest, AHoldEndsAtItsBound) {
  Hold.setMaxHold(20ms);
  Hold.turnOn();
  auto Start = std::chrono::steady_clock::now();
  Hold.hold();
  EXPECT_EQ(Word, 1u);
  ASSERT_TRUE(becomes(0));
  EXPECT_GE(std::chrono::steady_clock::now() - Start, 20ms);
  EXPECT_EQ(Hold.state().Expired, 1u);
  Hold.release();
  EXPECT_EQ(Word, 0u);
  EXPECT_EQ(Hold.state().Expired, 1u);
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
  EXPECT_EQ(Hold.state().Expired, 0u);
  ASSERT_TRUE(becomes(0));
  EXPECT_EQ(Hold.state().Expired, 1u);
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
  EXPECT_EQ(Hold.state().Expired, 0u); // not counted while off
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

TEST_F(GateHoldTest, IdleStopsListeningAndTheNextHoldListensFirst) {
  Hold.setIdleAfter(100ms);
  auto Start = std::chrono::steady_clock::now();
  Hold.turnOn();
  EXPECT_TRUE(Hold.state().Listening);
  ASSERT_TRUE(sleeps());
  EXPECT_GE(std::chrono::steady_clock::now() - Start, 100ms);
  EXPECT_EQ(Hold.state().Sleeps, 1u);
  forget();
  Hold.hold();
  EXPECT_EQ(events(), (std::vector<std::string>{"listen", "word 1"}));
  EXPECT_TRUE(Hold.state().Listening);
  EXPECT_EQ(Hold.state().Wakes, 1u);
  Hold.release();
  ASSERT_TRUE(sleeps()); // idle again, counted from the release
  EXPECT_EQ(Hold.state().Sleeps, 2u);
}

TEST_F(GateHoldTest, BracketsOpeningAndClosingKeepItListening) {
  Hold.setIdleAfter(300ms);
  Hold.turnOn();
  for (int I = 0; I < 16; ++I) { // 800 ms in all, never 300 ms idle
    Hold.hold();
    std::this_thread::sleep_for(25ms);
    Hold.release();
    std::this_thread::sleep_for(25ms);
  }
  EXPECT_TRUE(Hold.state().Listening);
  EXPECT_EQ(Hold.state().Sleeps, 0u);
  EXPECT_EQ(Hold.state().Wakes, 0u);
}

TEST_F(GateHoldTest, AnOpenBracketKeepsItListeningPastItsBound) {
  Hold.setMaxHold(20ms);
  Hold.setIdleAfter(40ms);
  Hold.turnOn();
  Hold.hold();
  ASSERT_TRUE(becomes(0)); // the bound
  std::this_thread::sleep_for(150ms);
  EXPECT_TRUE(Hold.state().Listening);
  Hold.release();
  ASSERT_TRUE(sleeps());
}

TEST_F(GateHoldTest, TheIdleTimeCountsFromTheRelease) {
  Hold.setIdleAfter(200ms);
  Hold.turnOn();
  Hold.hold();
  std::this_thread::sleep_for(300ms); // held: never idle
  EXPECT_TRUE(Hold.state().Listening);
  auto Released = std::chrono::steady_clock::now();
  Hold.release();
  ASSERT_TRUE(sleeps());
  EXPECT_GE(std::chrono::steady_clock::now() - Released, 200ms);
}

TEST_F(GateHoldTest, NoIdleTimeListensAlways) {
  Hold.setIdleAfter(0ms);
  Hold.turnOn();
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(Hold.state().Listening);
  EXPECT_EQ(Hold.state().Sleeps, 0u);
}

TEST_F(GateHoldTest, AFailedListenHoldsAndTheNextHoldTriesAgain) {
  Hold.setIdleAfter(20ms);
  Hold.turnOn();
  ASSERT_TRUE(sleeps());
  FailedListens = 1;
  forget();
  Hold.hold();
  EXPECT_FALSE(Hold.state().Listening);
  EXPECT_EQ(Word, 1u); // streams gated before still wait
  Hold.release();
  Hold.hold();
  EXPECT_TRUE(Hold.state().Listening);
  EXPECT_EQ(Hold.state().Wakes, 1u);
  EXPECT_EQ(events(), (std::vector<std::string>{"listen failed", "word 1",
                                                "word 0", "listen",
                                                "word 1"}));
  Hold.release();
}

TEST_F(GateHoldTest, AFailedSleepKeepsListeningAndTriesAgainWhenIdle) {
  FailedDeafs = 1;
  Hold.setIdleAfter(50ms);
  auto Start = std::chrono::steady_clock::now();
  Hold.turnOn();
  ASSERT_TRUE(sleeps());
  EXPECT_GE(std::chrono::steady_clock::now() - Start, 100ms); // two spells
  EXPECT_EQ(events(),
            (std::vector<std::string>{"word 0", "deaf failed", "deaf"}));
  EXPECT_EQ(Hold.state().Sleeps, 1u);
}

TEST_F(GateHoldTest, OffNeitherListensNorSleeps) {
  Hold.setIdleAfter(200ms);
  Hold.turnOn();
  Hold.turnOff();
  EXPECT_FALSE(Hold.state().Listening);
  forget();
  std::this_thread::sleep_for(400ms);
  Hold.hold();
  Hold.release();
  EXPECT_EQ(events(), (std::vector<std::string>{"word 0"}));
  EXPECT_EQ(Hold.state().Sleeps, 0u);
  EXPECT_EQ(Hold.state().Wakes, 0u);
}

} // namespace
