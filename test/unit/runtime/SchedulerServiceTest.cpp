//===- SchedulerServiceTest.cpp - SchedulerService's own contract ---------===//
//
// SchedulerService over a stand-in executor whose launches finish only when
// the test lets them, and whose poll the test can hold:
//  * a best-effort queue of IssueAtOnce work holds at most
//    MaxQueuedBestEffort launches, a submit of one more waits until one
//    leaves the queue, however it leaves (completion, or work given up when
//    a resume fails outside the service thread's poll), and other work is
//    not bounded (the GPU side: scheduler_check's deep-queue round);
//  * external LC brackets return while the service thread holds its lock,
//    and still make BE work yield and resume; BE work submitted inside one
//    is issued paused, and waitIdle() waits for it, whichever thread takes
//    the bracket first;
//  * a bracket's end lingers when asked to, and a bracket begun meanwhile
//    keeps BE work paused;
//  * a bracket open longer than the lease stops keeping BE work paused,
//    unless renewed, and its end is then no error;
//  * a launch that fails while BE work waits for a bracket is reported
//    before the bracket ends;
//  * an LC peer that is present (peersPresentWhile) keeps BE launches
//    from running as originals while the device is idle;
//  * a hold on BE work (for module loads) waits until none is left, paused
//    work included, and holds BE submits back, not LC work, until the last
//    hold ends; BE work that a bracket keeps paused past the hold's
//    patience is drained with the bracket still open, and yields again
//    once the hold is granted (the last hold, where several drain); a
//    resume that fails during a drain gives its work up, grants the hold,
//    and is reported by the next waitIdle().
//
//===----------------------------------------------------------------------===//

#include "baton/SchedulerService.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>

using namespace baton::sched;
using namespace std::chrono_literals;

namespace {

class SteadyClock : public Clock {
public:
  Nanos now() const override {
    return std::chrono::steady_clock::now().time_since_epoch();
  }
};

/// Launches run until Released is set, then are Done at the next poll. The
/// service calls it with its lock held only, so the state needs no lock of
/// its own; the test talks to it through the atomics.
class HeldExecutor : public Executor {
public:
  std::atomic<bool> Released{false};
  std::atomic<bool> FailNextResume{false};
  /// While set, poll() does not return (the service thread keeps its lock);
  /// InHeldPoll tells that the thread is in there.
  std::atomic<bool> HoldPoll{false};
  /// As HoldPoll, for a poll that finds a launch pausing: the thread is
  /// held on a pass that the device still keeps busy.
  std::atomic<bool> HoldPollWhilePausing{false};
  std::atomic<bool> InHeldPoll{false};
  std::atomic<int> PauseRequests{0};
  std::atomic<int> Resumes{0};
  std::atomic<int> Polls{0};          ///< poll() calls returned
  std::atomic<int> IssuedRunning{0};  ///< launches not started paused
  std::atomic<int> IssuedOriginal{0}; ///< originals, launched or resumed

  const DeviceFacts &facts() const override { return Facts; }
  const Clock &clock() const override { return Time; }
  void launch(const LaunchRequest &R) override {
    States[R.Id] = R.StartPaused ? State::Paused : State::Running;
    if (!R.StartPaused)
      ++IssuedRunning;
    if (R.LaunchForm == Form::Original)
      ++IssuedOriginal;
  }
  void requestPause(uint64_t Id) override {
    ++PauseRequests;
    if (States.at(Id) == State::Running)
      States[Id] = State::Pausing;
  }
  void resume(uint64_t Id, uint32_t, uint64_t) override {
    if (FailNextResume.exchange(false))
      throw std::runtime_error("resume failed (test)");
    ++Resumes;
    States.at(Id) = State::Running;
  }
  void resumeAsOriginal(uint64_t Id, uint64_t) override {
    ++IssuedOriginal;
    States.at(Id) = State::Running;
  }
  void vacate(uint64_t, uint32_t) override {}
  std::vector<Completion> poll() override {
    auto Held = [&] { return HoldPoll || (HoldPollWhilePausing && pausing()); };
    InHeldPoll = Held();
    while (Held())
      std::this_thread::sleep_for(100us);
    InHeldPoll = false;
    std::vector<Completion> Out;
    for (auto &[Id, S] : States) {
      if (S == State::Pausing) {
        S = State::Paused;
        Out.push_back({Id, Completion::Paused, Time.now(), 1us, 0});
      } else if (S == State::Running && Released) {
        S = State::Finished;
        Out.push_back({Id, Completion::Done, Time.now(), 1us, 1});
      }
    }
    ++Polls;
    return Out;
  }

private:
  enum class State { Running, Pausing, Paused, Finished };
  bool pausing() const {
    for (const auto &[Id, S] : States)
      if (S == State::Pausing)
        return true;
    return false;
  }
  DeviceFacts Facts;
  SteadyClock Time;
  std::map<uint64_t, State> States;
};

/// Lets a held poll return however a test ends: the service's destructor
/// needs a pass of its thread.
struct UnholdOnExit {
  HeldExecutor &Exec;
  ~UnholdOnExit() { Exec.HoldPoll = Exec.HoldPollWhilePausing = false; }
};

Work beWork(bool IssueAtOnce) {
  Work W;
  W.Kernel.Name = "train";
  // Many waves: one wave would run as the original while the device is
  // quiet, which no bracket can pause.
  W.Kernel.Blocks = 100000;
  W.Kernel.ThreadsPerBlock = 256;
  W.Kernel.HasPtb = true;
  W.Kernel.HasSlice = true;
  W.Class = PriorityClass::BestEffort;
  W.Queue = 1;
  W.IssueAtOnce = IssueAtOnce;
  return W;
}

/// Whether \p Holds becomes true within \p Limit.
template <typename Predicate>
bool eventually(Predicate Holds, std::chrono::milliseconds Limit = 5000ms) {
  auto End = std::chrono::steady_clock::now() + Limit;
  while (!Holds()) {
    if (std::chrono::steady_clock::now() >= End)
      return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

/// Submits \p Count pieces of BE work from a thread of its own.
class Submitter {
public:
  Submitter(SchedulerService &Svc, size_t Count, bool IssueAtOnce)
      : Thread([&Svc, Count, IssueAtOnce, this] {
          for (size_t I = 0; I < Count; ++I) {
            Svc.submit(beWork(IssueAtOnce));
            ++Submitted;
          }
        }) {}
  ~Submitter() { Thread.join(); }

  /// Whether Submitted reaches \p N within \p Limit.
  bool reaches(size_t N, std::chrono::milliseconds Limit = 5000ms) const {
    auto End = std::chrono::steady_clock::now() + Limit;
    while (Submitted < N && std::chrono::steady_clock::now() < End)
      std::this_thread::sleep_for(1ms);
    return Submitted >= N;
  }

  std::atomic<size_t> Submitted{0};

private:
  std::thread Thread;
};

constexpr size_t Bound = SchedulerService::MaxQueuedBestEffort;

TEST(SchedulerService, AFullQueueMakesSubmitWaitUntilALaunchCompletes) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  {
    Submitter S(Svc, Bound + 10, /*IssueAtOnce=*/true);
    ASSERT_TRUE(S.reaches(Bound));
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(S.Submitted, Bound) << "a submit past the bound did not wait";
    Exec.Released = true;
    EXPECT_TRUE(S.reaches(Bound + 10)) << "the waiting submit was not woken";
  }
  Svc.waitIdle();
}

TEST(SchedulerService, AnLcPeerKeepsTheDeviceFromBeingIdle) {
  HeldExecutor Exec;
  Exec.Released = true;
  SchedulerOptions O;
  O.OriginalsWhenIdleWithBlocksUpTo = 20us; // the stand-in's blocks: 1 us
  SchedulerService Svc(Exec, O);
  std::atomic<bool> Peer{true};
  Svc.peersPresentWhile([&] { return Peer.load(); });
  auto runOne = [&] {
    Svc.submit(beWork(/*IssueAtOnce=*/false));
    Svc.waitIdle();
  };
  runOne(); // measures the kernel's blocks
  runOne();
  EXPECT_EQ(Exec.IssuedOriginal, 0) << "an LC peer is present";
  Peer = false;
  runOne();
  EXPECT_EQ(Exec.IssuedOriginal, 1);
  Svc.peersPresentWhile([] { return true; });
  runOne();
  EXPECT_EQ(Exec.IssuedOriginal, 1);
}

TEST(SchedulerService, WorkGivenUpOutsideThePollWakesAWaitingSubmit) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  // LC work holds the queue paused: its launches are issued paused.
  uint64_t Lc = Svc.beginExternal(0);
  {
    Submitter S(Svc, Bound + 1, /*IssueAtOnce=*/true);
    ASSERT_TRUE(S.reaches(Bound));
    std::this_thread::sleep_for(20ms);
    ASSERT_EQ(S.Submitted, Bound);
    // The end of the LC work, taken by the service thread, resumes the
    // queue's head; the resume fails and the head is given up, leaving room
    // in the queue.
    Exec.FailNextResume = true;
    Svc.endExternal(Lc);
    EXPECT_TRUE(S.reaches(Bound + 1, 2000ms))
        << "the waiting submit slept through a launch given up";
    Exec.Released = true;
  }
  EXPECT_THROW(Svc.waitIdle(), std::runtime_error);
  Svc.waitIdle();
}

/// An open bracket, returned, and BE work issued paused under it, whose id
/// goes to \p Paused.
uint64_t bracketWithPausedWork(SchedulerService &Svc, uint64_t &Paused) {
  uint64_t Bracket = Svc.beginExternal(0);
  Paused = Svc.submit(beWork(/*IssueAtOnce=*/true));
  EXPECT_EQ(Svc.info(Paused).State, WorkState::Paused)
      << "BE work submitted under a bracket was not issued paused";
  return Bracket;
}

/// BE work submitted now yields to \p Bracket (no drain is left on); then
/// the bracket ends and everything completes.
void expectYieldsThenEnd(SchedulerService &Svc, uint64_t Bracket) {
  uint64_t After = Svc.submit(beWork(/*IssueAtOnce=*/true));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(Svc.info(After).State, WorkState::Paused)
      << "BE work did not yield to the open bracket";
  Svc.endExternal(Bracket);
  Svc.waitIdle();
}

TEST(SchedulerService, ABracketPastItsLeaseNoLongerKeepsWorkPaused) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  Svc.leaseBrackets(300ms);
  Exec.Released = true; // launches finish as soon as they run
  uint64_t Be;
  uint64_t Bracket = bracketWithPausedWork(Svc, Be);
  // Renewed, as a client whose LC work makes progress does, it holds past
  // the lease.
  for (int I = 0; I < 20; ++I) {
    std::this_thread::sleep_for(20ms);
    Svc.renewExternal(Bracket);
  }
  EXPECT_EQ(Svc.info(Be).State, WorkState::Paused)
      << "a renewed bracket expired";
  EXPECT_EQ(Svc.stats().ExpiredBrackets, 0u);
  // Left alone, it expires: the work runs with the bracket still open.
  EXPECT_TRUE(eventually(
      [&] { return Svc.info(Be).State == WorkState::Done; }, 2000ms))
      << "BE work stayed paused past the lease";
  EXPECT_EQ(Svc.stats().ExpiredBrackets, 1u);
  Svc.renewExternal(Bracket); // too late: it stays expired
  uint64_t After = Svc.submit(beWork(/*IssueAtOnce=*/true));
  EXPECT_TRUE(eventually(
      [&] { return Svc.info(After).State == WorkState::Done; }, 2000ms));
  EXPECT_NO_THROW(Svc.endExternal(Bracket));
  // A new bracket holds BE work paused again.
  uint64_t Next = Svc.beginExternal(0);
  uint64_t Held = Svc.submit(beWork(/*IssueAtOnce=*/true));
  EXPECT_EQ(Svc.info(Held).State, WorkState::Paused);
  Svc.endExternal(Next);
  Svc.waitIdle();
}

// holdBestEffort(): what module loads need (no stream waiting on a word
// only the host releases).

/// A hold with patience enough for any test: it is granted without a
/// drain unless something keeps BE work paused.
SchedulerService::BestEffortHold holdOf(SchedulerService &Svc) {
  return Svc.holdBestEffort(5000ms);
}

TEST(SchedulerService, AHoldWaitsForBestEffortWorkThenHoldsSubmitsBack) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  Svc.submit(beWork(/*IssueAtOnce=*/true));
  std::atomic<bool> Held{false};
  std::optional<SchedulerService::BestEffortHold> Hold;
  std::thread Holder([&] {
    Hold.emplace(holdOf(Svc));
    Held = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(Held) << "the hold did not wait for the BE work on the device";
  Exec.Released = true;
  ASSERT_TRUE(eventually([&] { return Held.load(); }))
      << "the hold was not granted once the BE work completed";
  Holder.join();
  {
    Submitter S(Svc, 2, /*IssueAtOnce=*/true);
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(S.Submitted, 0u) << "BE work was submitted during a hold";
    // LC work and brackets are not held back.
    uint64_t Bracket = Svc.beginExternal(0);
    Svc.endExternal(Bracket);
    std::atomic<bool> LcIn{false};
    std::thread Lc([&] {
      Work W = beWork(/*IssueAtOnce=*/false);
      W.Class = PriorityClass::LatencyCritical;
      Svc.submit(std::move(W));
      LcIn = true;
    });
    bool LcEntered = eventually([&] { return LcIn.load(); }, 2000ms);
    if (!LcEntered)
      Hold.reset(); // or the join below waits for ever
    Lc.join();
    EXPECT_TRUE(LcEntered) << "LC work was held back with the BE work";
    Hold.reset();
    EXPECT_TRUE(S.reaches(2)) << "the end of the hold woke no submit";
  }
  Svc.waitIdle();
}

TEST(SchedulerService, AHoldWaitsForWorkPausedByABracketUntilItEnds) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  Exec.Released = true; // launches finish as soon as they run
  uint64_t Bracket = Svc.beginExternal(0);
  Svc.submit(beWork(/*IssueAtOnce=*/true)); // issued paused
  std::atomic<bool> Held{false};
  std::thread Holder([&] {
    auto Hold = holdOf(Svc);
    Held = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(Held) << "granted while BE work waited paused";
  Svc.endExternal(Bracket);
  EXPECT_TRUE(eventually([&] { return Held.load(); }));
  Holder.join();
  Svc.waitIdle();
}

TEST(SchedulerService, AHoldDrainsWorkABracketKeepsPausedPastItsPatience) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  Exec.Released = true; // launches finish as soon as they run
  uint64_t Paused;
  uint64_t Bracket = bracketWithPausedWork(Svc, Paused);
  auto Start = std::chrono::steady_clock::now();
  {
    // As a thread whose own bracket keeps the work paused: the bracket
    // stays open throughout.
    auto Hold = Svc.holdBestEffort(30ms);
    EXPECT_GE(std::chrono::steady_clock::now() - Start, 30ms)
        << "drained before the patience was up";
    EXPECT_EQ(Svc.info(Paused).State, WorkState::Done)
        << "a hold was granted with BE work outstanding";
    EXPECT_EQ(Exec.Resumes, 1) << "the drain did not resume the paused work";
    EXPECT_EQ(Svc.stats().Drains, 1u);
  }
  // Granted, the hold ends the drain: BE work yields to the open bracket
  // again.
  expectYieldsThenEnd(Svc, Bracket);
}

TEST(SchedulerService, HoldsThatDrainTogetherEndTheDrainWithTheLast) {
  HeldExecutor Exec;
  // A service that polls every 5 ms: the drain must not depend on the busy
  // poll's pace.
  SchedulerService Svc(Exec, {}, 5ms);
  uint64_t Paused;
  uint64_t Bracket = bracketWithPausedWork(Svc, Paused);
  std::atomic<int> Granted{0};
  std::optional<SchedulerService::BestEffortHold> First, Second;
  std::thread A([&] {
    First.emplace(Svc.holdBestEffort(20ms));
    ++Granted;
  });
  std::thread B([&] {
    Second.emplace(Svc.holdBestEffort(40ms));
    ++Granted;
  });
  // Both run out of patience while the resumed work still runs.
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(Granted, 0) << "a hold was granted with BE work on the device";
  EXPECT_EQ(Svc.stats().Drains, 2u);
  Exec.Released = true;
  A.join();
  B.join();
  EXPECT_EQ(Svc.info(Paused).State, WorkState::Done);
  First.reset();
  Second.reset();
  // Both drains over: BE work yields to the open bracket again.
  expectYieldsThenEnd(Svc, Bracket);
}

TEST(SchedulerService, ADrainWhoseResumeFailsStillGrantsTheHold) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  Exec.Released = true;
  uint64_t Paused;
  uint64_t Bracket = bracketWithPausedWork(Svc, Paused);
  Exec.FailNextResume = true;
  {
    // The failed work is given up, which leaves no BE work either.
    auto Hold = Svc.holdBestEffort(10ms);
    EXPECT_EQ(Svc.info(Paused).State, WorkState::Done);
  }
  Svc.endExternal(Bracket);
  EXPECT_THROW(Svc.waitIdle(), std::runtime_error)
      << "the failed resume was not reported";
  Svc.waitIdle();
}

TEST(SchedulerService, HoldsOverlapAndSubmitsWaitForTheLast) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  Exec.Released = true;
  std::optional<SchedulerService::BestEffortHold> First, Second;
  First.emplace(holdOf(Svc));
  Second.emplace(holdOf(Svc));
  {
    Submitter S(Svc, 1, /*IssueAtOnce=*/false);
    First.reset();
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(S.Submitted, 0u) << "a submit went in with a hold left";
    Second.reset();
    EXPECT_TRUE(S.reaches(1));
  }
  Svc.waitIdle();
}

TEST(SchedulerService, WorkNotIssuedAtOnceIsNotBounded) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  {
    Submitter S(Svc, Bound + 10, /*IssueAtOnce=*/false);
    EXPECT_TRUE(S.reaches(Bound + 10));
    Exec.Released = true;
  }
  Svc.waitIdle();
}

TEST(SchedulerService, StatsCountTheLaunchesRunAsOriginals) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  Svc.submit(beWork(/*IssueAtOnce=*/true)); // many waves: PTB
  Work OneWave = beWork(/*IssueAtOnce=*/true);
  OneWave.Kernel.Name = "tile";
  OneWave.Kernel.Blocks = 8; // on a device that has seen no LC work: the
  Svc.submit(std::move(OneWave)); // original (OriginalForOneWaveWhenQuiet)
  Exec.Released = true;
  Svc.waitIdle();
  EXPECT_EQ(Svc.stats().BestEffort, 2u);
  EXPECT_EQ(Svc.stats().Originals, 1u);
}

TEST(SchedulerService, BracketsDoNotWaitForTheServiceThreadsLock) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  Svc.submit(beWork(/*IssueAtOnce=*/false)); // running: the thread polls
  UnholdOnExit Unhold{Exec};
  Exec.HoldPoll = true;
  ASSERT_TRUE(eventually([&] { return Exec.InHeldPoll.load(); }));
  std::atomic<bool> Returned{false};
  std::thread Client([&] {
    uint64_t Bracket = Svc.beginExternal(0);
    Svc.endExternal(Bracket);
    Returned = true;
  });
  bool Prompt = eventually([&] { return Returned.load(); }, 2000ms);
  int Held = Exec.Polls;
  Exec.HoldPoll = false;
  Client.join();
  EXPECT_TRUE(Prompt) << "a bracket waited for a poll in progress";
  // The held poll returns, then a whole pass (mail, poll) runs while the
  // work still runs: only then may it finish.
  EXPECT_TRUE(eventually([&] { return Exec.Polls >= Held + 2; }));
  // Begun and ended within one pass of the thread, it paused nothing.
  EXPECT_EQ(Exec.PauseRequests, 0);
  Exec.Released = true;
  Svc.waitIdle();
  EXPECT_EQ(Svc.stats().LatencyCritical, 1u);
}

TEST(SchedulerService, BracketsPauseAndResumeBestEffortWork) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  Svc.submit(beWork(/*IssueAtOnce=*/false));
  uint64_t Bracket = Svc.beginExternal(0);
  EXPECT_TRUE(eventually([&] { return Exec.PauseRequests > 0; }))
      << "BE work did not yield to the bracket";
  Svc.endExternal(Bracket);
  EXPECT_TRUE(eventually([&] { return Exec.Resumes > 0; }))
      << "BE work was not resumed after the bracket";
  Exec.Released = true;
  Svc.waitIdle();
}

TEST(SchedulerService, BackToBackBracketsKeepBestEffortWorkPaused) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  UnholdOnExit Unhold{Exec};
  Svc.submit(beWork(/*IssueAtOnce=*/false));
  // One request ends and the next begins while the thread is in the poll
  // that finds the BE work pausing for the first: its next pass takes both.
  Exec.HoldPollWhilePausing = true;
  uint64_t First = Svc.beginExternal(0);
  ASSERT_TRUE(eventually([&] { return Exec.InHeldPoll.load(); }));
  Svc.endExternal(First);
  uint64_t Second = Svc.beginExternal(0);
  int Held = Exec.Polls;
  Exec.HoldPollWhilePausing = false;
  ASSERT_TRUE(eventually([&] { return Exec.Polls >= Held + 2; }));
  EXPECT_EQ(Exec.Resumes, 0) << "BE work resumed between two brackets";
  Svc.endExternal(Second);
  EXPECT_TRUE(eventually([&] { return Exec.Resumes > 0; }));
  Exec.Released = true;
  Svc.waitIdle();
}

TEST(SchedulerService, ABracketsEndLingers) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  // Long enough that a loaded machine does not stretch the test's own
  // steps past it.
  constexpr auto Linger = 300ms;
  Svc.lingerAfterBrackets(Linger);
  Svc.submit(beWork(/*IssueAtOnce=*/false));
  uint64_t First = Svc.beginExternal(0);
  ASSERT_TRUE(eventually([&] { return Exec.PauseRequests > 0; }));
  Svc.endExternal(First);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(Exec.Resumes, 0) << "BE work resumed within the linger";
  // A bracket begun within the linger: BE work stays paused past it.
  uint64_t Second = Svc.beginExternal(0);
  std::this_thread::sleep_for(Linger + 100ms);
  EXPECT_EQ(Exec.Resumes, 0) << "BE work resumed between two brackets";
  auto Ended = std::chrono::steady_clock::now();
  Svc.endExternal(Second);
  ASSERT_TRUE(eventually([&] { return Exec.Resumes > 0; }));
  EXPECT_GE(std::chrono::steady_clock::now() - Ended, Linger)
      << "the last end did not linger";
  EXPECT_EQ(Exec.PauseRequests, 1) << "paused again between the brackets";
  Exec.Released = true;
  Svc.waitIdle();
}

TEST(SchedulerService, ALingeringEndIsAppliedWithNothingElseToDo) {
  HeldExecutor Exec;
  auto Start = std::chrono::steady_clock::now();
  {
    SchedulerService Svc(Exec);
    Svc.lingerAfterBrackets(50ms);
    uint64_t First = Svc.beginExternal(0);
    Svc.endExternal(First);
    Svc.waitIdle();
    uint64_t Second = Svc.beginExternal(0);
    Svc.endExternal(Second);
  } // the destructor waits for the second end's linger
  EXPECT_LT(std::chrono::steady_clock::now() - Start, 2000ms);
}

/// As RuntimeExecutor: a launch found failed is reported Done, and its
/// error is rethrown by the next poll().
class FailingLcExecutor : public HeldExecutor {
public:
  void launch(const LaunchRequest &R) override {
    HeldExecutor::launch(R);
    if (R.HighPriority)
      FailingLc = R.Id;
  }
  std::vector<Completion> poll() override {
    if (std::exchange(ErrorPending, false))
      throw std::runtime_error("launch failed (test)");
    std::vector<Completion> Out = HeldExecutor::poll();
    if (FailingLc) {
      Out.push_back({std::exchange(FailingLc, 0), Completion::Done,
                     clock().now(), 1us, 0});
      ErrorPending = true;
    }
    return Out;
  }

private:
  uint64_t FailingLc = 0;
  bool ErrorPending = false;
};

TEST(SchedulerService, ALaunchFailingUnderABracketIsReportedAtOnce) {
  FailingLcExecutor Exec;
  SchedulerService Svc(Exec);
  Svc.submit(beWork(/*IssueAtOnce=*/false));
  uint64_t Bracket = Svc.beginExternal(0);
  ASSERT_TRUE(eventually([&] { return Exec.PauseRequests > 0; }));
  // The request's own kernel, submitted as LC work, fails on the device
  // while BE work is paused: waitIdle() reports it without waiting for the
  // bracket to end.
  Work Lc = beWork(/*IssueAtOnce=*/false);
  Lc.Class = PriorityClass::LatencyCritical;
  Lc.Kernel.Blocks = 10;
  Svc.submit(std::move(Lc));
  std::atomic<bool> Returned{false};
  std::atomic<bool> Threw{false};
  std::thread Waiter([&] {
    try {
      Svc.waitIdle();
    } catch (const std::runtime_error &) {
      Threw = true;
    }
    Returned = true;
  });
  bool Prompt = eventually([&] { return Returned.load(); }, 2000ms);
  Svc.endExternal(Bracket);
  Waiter.join();
  EXPECT_TRUE(Prompt) << "the failure waited for the bracket's end";
  EXPECT_TRUE(Threw);
  Exec.Released = true;
  Svc.waitIdle();
}

TEST(SchedulerService, EndingABracketThatIsNotOpenThrows) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  EXPECT_THROW(Svc.endExternal(12345), std::invalid_argument);
  uint64_t Bracket = Svc.beginExternal(0);
  Svc.endExternal(Bracket);
  EXPECT_THROW(Svc.endExternal(Bracket), std::invalid_argument);
  Svc.waitIdle();
}

TEST(SchedulerService, WaitIdleWaitsForAnOpenBracket) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  uint64_t Bracket = Svc.beginExternal(0);
  std::atomic<bool> Idle{false};
  std::thread Waiter([&] {
    Svc.waitIdle();
    Idle = true;
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(Idle) << "waitIdle returned with a bracket open";
  Svc.endExternal(Bracket);
  EXPECT_TRUE(eventually([&] { return Idle.load(); }));
  Waiter.join();
}

TEST(SchedulerService, BestEffortWorkSubmittedInABracketIsIssuedPaused) {
  HeldExecutor Exec;
  Exec.Released = true;
  SchedulerService Svc(Exec);
  // The service thread may take the begin first, or the submit: either
  // way the launch must be issued paused. Repeated, since a submit that
  // did not take the mail would lose only some races.
  for (int I = 0; I < 200; ++I) {
    uint64_t Bracket = Svc.beginExternal(0);
    Svc.submit(beWork(/*IssueAtOnce=*/true));
    bool Paused = Exec.IssuedRunning == 0;
    Svc.endExternal(Bracket);
    Svc.waitIdle();
    ASSERT_TRUE(Paused) << "iteration " << I
                        << ": a BE launch ran inside a bracket";
  }
}

TEST(SchedulerService, WaitIdleCalledRightAfterABracketBeganWaitsForIt) {
  HeldExecutor Exec;
  SchedulerService Svc(Exec);
  std::atomic<int> Go{0}, Returned{0};
  std::atomic<bool> Stop{false};
  std::thread Waiter([&] {
    for (int Seen = 0;;) {
      while (Go == Seen && !Stop)
        std::this_thread::yield();
      if (Stop)
        return;
      ++Seen;
      Svc.waitIdle();
      Returned = Seen;
    }
  });
  for (int I = 1; I <= 50; ++I) {
    uint64_t Bracket = Svc.beginExternal(0);
    Go = I; // waitIdle() at once, likely before the service thread's pass
    std::this_thread::sleep_for(2ms);
    EXPECT_NE(Returned, I) << "waitIdle returned with a bracket open";
    Svc.endExternal(Bracket);
    EXPECT_TRUE(eventually([&] { return Returned == I; }));
  }
  Stop = true;
  Waiter.join();
}

} // namespace
