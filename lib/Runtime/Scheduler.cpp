//===- Scheduler.cpp - Priority scheduling of kernel launches -------------===//
//
// The state machine of Scheduler.h. Every change (a submission, a launch that
// paused or finished) ends in replan(), which compares what each BE queue's
// head is doing with what the active LC work allows and issues the pauses,
// resumes and launches that close the gap. A launch's width only changes
// through a pause followed by a resume at the new width: the PTB cursor (or
// the slice checkpoint) makes that exact. Its vacated SMs change in place.
//
//===----------------------------------------------------------------------===//

#include "baton/Scheduler.h"

#include "SchedulerPolicy.h"
#include "Trace.h"

#include <algorithm>
#include <cassert>
#include <deque>
#include <exception>
#include <optional>
#include <set>
#include <utility>
#include <stdexcept>

using namespace baton::sched;

namespace {
struct Entry {
  Work W;
  WorkInfo Info;
  /// Last resumed behind the launch ahead of it (see planFollower): it
  /// waited on the device for that one, which a completion's elapsed time
  /// must not count.
  bool Chained = false;
  Nanos HeadSince{0}; ///< when it became its queue's head
  /// Stopped, unasked, with no block run: every worker was on a vacated
  /// SM. Its next run vacates nothing, so that it cannot stop that way
  /// again and again.
  bool StrandedByVacate = false;
  /// Most SMs vacated since the launch's last (re)launch: workers that left
  /// do not come back before a resume, so that many SMs ran none of it.
  uint32_t RunVacated = 0;
  /// Issued paused and not resumed yet: nothing of it has run.
  bool NotStarted = false;
  /// The occupancy its last (re)launch was chosen at
  /// (WidthChoice::BlocksPerSm): the key its block times are recorded under.
  uint32_t RunBlocksPerSm = 1;
  /// When the pause now under way was asked for: the drain a Paused
  /// completion measures (PromptModel).
  std::optional<Nanos> PauseAskedAt;
};
} // namespace

struct Scheduler::State {
  State(Executor &Exec, const SchedulerOptions &Options)
      : Exec(Exec), Options(Options),
        Durations(Options.DefaultBlockDuration, Options.EmaWeight) {}

  Executor &Exec;
  SchedulerOptions Options;
  DurationModel Durations;
  PromptModel Prompts;
  std::map<uint64_t, Entry> Entries;
  /// BE queues; the front is the one launch of the queue that may be issued.
  std::map<uint32_t, std::deque<uint64_t>> Queues;
  std::map<uint64_t, SharingChoice> ActiveLc;
  /// Tightest SLO per LC kernel seen, and the most SMs one needed.
  std::map<std::string, Nanos> LcSlos;
  uint32_t LargestLcSms = 0;
  uint64_t NextId = 1;
  std::set<uint64_t> External; ///< LC work begun with beginExternal
  uint64_t Outstanding = 0;
  uint64_t SloMisses = 0;
  uint64_t Resumes = 0;
  uint64_t Pauses = 0;
  uint64_t Vacates = 0;
  uint64_t Originals = 0;
  /// Per kernel: BE launches issued untimed since its last timed one
  /// (see timeRuns).
  std::map<std::string, uint32_t> UntimedLaunches;
  /// When LC work last finished (see launchesAhead).
  std::optional<Nanos> LastLcDone;
  bool PeersPresent = false; ///< see setPeersPresent()
  bool Draining = false; ///< see drainBestEffort()
  /// A failure of other work met while acting on a submission, which
  /// submit() does not report (it throws only for the work it was given):
  /// the next poll() rethrows it.
  std::exception_ptr Deferred;

  /// What active LC work leaves BE work: whether it must all yield, and
  /// the SMs it may use otherwise.
  struct Room {
    bool YieldAll = false;
    uint32_t FreeSms = 0;
  };

  const DeviceFacts &device() const { return Exec.facts(); }
  Room room() const;
  Nanos bound() const;
  Nanos drainingBeBlock() const;
  uint64_t concurrency(const Entry &E, const Completion &C) const;
  /// No LC work now, and none done within \p Spell (or none ever).
  bool noLcFor(Nanos Spell) const;
  /// No LC work now, and none for SchedulerOptions::QuietAfter.
  bool quiet() const;
  /// No LC work now, none for SchedulerOptions::IdleAfter, and no LC peer
  /// present.
  bool idleSpell() const;
  uint32_t launchesAhead() const;
  /// Whether BE launch \p E, about to be issued as \p Choice says, is
  /// timed (SchedulerOptions::QuietTimingInterval).
  bool timeRuns(const Entry &E, const WidthChoice &Choice);
  void startLc(uint64_t Id, Entry &E);
  void complete(const Completion &C);
  void notePause(Entry &E, const Completion &C);
  void replan();
  /// replan() for a change that is not a submission (external LC work
  /// beginning or ending): executor failures go to Deferred.
  void replanDeferringFailures();
  void planHead(uint64_t Id, Entry &E, bool YieldAll, uint32_t FreeSms);
  void planFollower(uint64_t Id, Entry &E, uint64_t AheadId, bool YieldAll,
                    uint32_t FreeSms);
  WidthChoice widthFor(const Entry &E, uint32_t FreeSms) const;
  /// Whether external LC work on \p Sms SMs shares space (fewer than all,
  /// 0 meaning all); if so, those SMs count towards the most LC work needs.
  bool noteExternalSms(uint32_t Sms);
  /// \p Choice (widthFor's) for a launch issued to run now, not paused;
  /// see SchedulerOptions::OriginalForOneWaveWhenQuiet and
  /// OriginalsWhenQuietUpTo.
  WidthChoice runningNow(const Entry &E, const WidthChoice &Choice) const;
  /// Whether the device is idle and \p E's blocks were measured short
  /// enough at the occupancy of \p Original, its original's choice, for it
  /// to run as that (SchedulerOptions::OriginalsWhenIdleWithBlocksUpTo).
  bool idleAllowsOriginal(const Entry &E, const WidthChoice &Original) const;
  /// Expected whole-device time of \p E run as the original.
  Nanos originalLatency(const Entry &E) const;
  /// Expected whole-device times of the BE originals running next to the
  /// launch at \p Pos of \p Ids, its queue: those just ahead of it, back to
  /// the last launch that can pause, and those just behind it, up to the
  /// next. LC work arriving as the first of a run of originals starts may
  /// share SMs with the whole run before a launch that can pause stops
  /// their stream.
  std::pair<Nanos, Nanos> originalsBeside(const std::deque<uint64_t> &Ids,
                                          size_t Pos) const;
  /// Whether paused launch \p Id (\p E) may be resumed as \p Original:
  /// originals issued running behind it (issueAtOnce) would make one run
  /// with it and those ahead, and that run keeps to the bound too.
  bool keepsRunToBound(uint64_t Id, const Entry &E,
                       const WidthChoice &Original) const;
  /// Expected whole-device time of the BE launches running as originals,
  /// \p Besides left out.
  Nanos beOriginalsOnDevice(const Entry &Besides) const;
  /// Whether a running launch given SMs back is paused to be resumed at
  /// full width, rather than left to finish on the SMs it kept.
  bool worthRegrowing(const Entry &E) const;
  void launch(uint64_t Id, Entry &E, const WidthChoice &Choice,
              bool StartPaused, uint64_t After);
  void setVacated(uint64_t Id, Entry &E, uint32_t Sms);
  /// Whether a launch within the window may run behind \p Ahead now.
  bool mayFollow(const Entry &Ahead, bool YieldAll) const {
    return !YieldAll && Ahead.Info.State == WorkState::Running;
  }
  void yieldIfAsked(uint64_t Id, Entry &E, bool YieldAll,
                    const WidthChoice &Choice);
  void resume(uint64_t Id, Entry &E, const WidthChoice &Choice,
              uint64_t After);
  void issueAtOnce(uint64_t Id, Entry &E);
  void finish(uint64_t Id, Entry &E, Nanos At);
  void abandon(uint64_t Id);
  /// Runs \p Call, an executor call on behalf of work \p Id; if it throws,
  /// abandons the work and rethrows.
  template <class F> void forWork(uint64_t Id, F Call);
};

/// The bound BE launches are sized for: the option, or less where an LC
/// kernel's SLO leaves less slack over its expected duration.
Nanos Scheduler::State::bound() const {
  Nanos Bound = Options.PreemptionBound;
  for (const auto &[Name, Slo] : LcSlos) {
    Nanos Slack = Slo - Durations.latest(Name);
    Bound = std::min(Bound, std::max(Slack, Nanos(0)));
  }
  return Bound;
}

/// The longest block among BE launches an LC arrival would have to drain.
Nanos Scheduler::State::drainingBeBlock() const {
  Nanos Longest(0);
  for (const auto &[Queue, Ids] : Queues) {
    const Entry &E = Entries.at(Ids.front());
    if (E.Info.State == WorkState::Running)
      Longest = std::max(
          Longest, Durations.of(E.W.Kernel.Name).at(E.RunBlocksPerSm));
  }
  return Longest;
}

/// Blocks of \p E that ran side by side in the run that \p C ends, to turn
/// its elapsed time into a per-block duration.
///
/// Where a run vacated SMs, where its workers went depends on what else is
/// there. On idle vacated SMs the hardware spreads the workers over every
/// SM, and those on vacated ones leave: Width * kept / all stay. Where LC
/// blocks on the vacated SMs leave no room for a worker, every worker goes
/// to the kept SMs, as many at a time as fit there (H100,
/// bench/vacate_placement, with LC blocks that held an SM's shared memory
/// and with small ones that used none). That is what choosePtb plans for
/// a prompt launch, sized for the kept SMs alone: all Width of it run at
/// once, not Width * kept / all. The workers the device counted
/// leaving tell the two apart in a run that ended on its own; a paused
/// run's count includes the pause's, so it keeps the first figure. Either
/// way the sample is recorded under the occupancy the width was chosen at
/// (Entry::RunBlocksPerSm): it is what a launch planned so takes.
uint64_t Scheduler::State::concurrency(const Entry &E,
                                       const Completion &C) const {
  uint32_t All = device().Multiprocessors;
  uint32_t Kept = All - std::min(E.RunVacated, All - 1);
  uint64_t Resident = blocksPerWave(device(), E.W.Kernel, E.Info.LaunchForm);
  uint64_t Spread = std::min<uint64_t>(E.Info.Width, Resident) * Kept / All;
  uint64_t Side = Spread;
  if (E.RunVacated && C.What == Completion::Done) {
    uint64_t Stayed =
        E.Info.Width - std::min<uint64_t>(C.WorkersLeft, E.Info.Width);
    Side = std::clamp(Stayed, Spread, Resident * Kept / All);
  }
  return std::max<uint64_t>(Side, 1);
}

bool Scheduler::State::noLcFor(Nanos Spell) const {
  return ActiveLc.empty() &&
         (!LastLcDone || Exec.clock().now() - *LastLcDone >= Spell);
}

bool Scheduler::State::quiet() const { return noLcFor(Options.QuietAfter); }

bool Scheduler::State::idleSpell() const {
  return !PeersPresent && noLcFor(Options.IdleAfter);
}

/// How many launches behind each BE queue's head are resumed now.
uint32_t Scheduler::State::launchesAhead() const {
  uint32_t Window = quiet() ? std::max(Options.LaunchesAhead,
                                       Options.LaunchesAheadWhenQuiet)
                            : Options.LaunchesAhead;
  return device().MaxLaunchesAhead
             ? std::min(Window, device().MaxLaunchesAhead)
             : Window;
}

bool Scheduler::State::timeRuns(const Entry &E, const WidthChoice &Choice) {
  const std::string &Name = E.W.Kernel.Name;
  if (!quiet() || Options.QuietTimingInterval <= 1 ||
      !Durations.measuredAt(Name, Choice.BlocksPerSm)) {
    UntimedLaunches.erase(Name);
    return true;
  }
  uint32_t &Untimed = UntimedLaunches[Name];
  if (++Untimed < Options.QuietTimingInterval)
    return false;
  Untimed = 0;
  return true;
}

void Scheduler::State::startLc(uint64_t Id, Entry &E) {
  const KernelShape &K = E.W.Kernel;
  E.RunBlocksPerSm = blocksSharingAnSm(device(), K, Form::Original, K.Blocks);
  SharingChoice Choice =
      chooseSharing(device(), K, Durations.of(K.Name).at(E.RunBlocksPerSm),
                    drainingBeBlock());
  LargestLcSms = std::max(LargestLcSms, smsForOneWave(device(), K));
  if (E.W.Slo) {
    Nanos Slo = *E.W.Slo;
    auto [It, New] = LcSlos.try_emplace(K.Name, Slo);
    It->second = std::min(It->second, Slo);
  }
  E.Info.HowShared = Choice.How;
  E.Info.LaunchForm = Form::Original;
  E.Info.Width = static_cast<uint32_t>(K.Blocks);
  E.Info.State = WorkState::Running;
  E.Info.Launches = 1;
  ActiveLc[Id] = Choice;
  // Issued before BE work is asked to yield: its blocks take SMs as they
  // free up, with no host round trip in between.
  forWork(Id, [&] {
    Exec.launch({Id, &E.W.Kernel, Form::Original, E.Info.Width,
                 /*HighPriority=*/true, 0, &E.W.Payload});
  });
}

void Scheduler::State::complete(const Completion &C) {
  auto It = Entries.find(C.Id);
  if (It == Entries.end() || It->second.Info.State == WorkState::Done)
    return; // abandoned after a failure; the executor still reported it
  Entry &E = It->second;
  Completion Measured = C;
  if (E.Chained && E.HeadSince > E.Info.SubmittedAt)
    Measured.Elapsed = std::min(C.Elapsed, C.At - E.HeadSince);
  if (C.Measured)
    if (auto Sample = measuredBlock(Measured, concurrency(E, C)))
      Durations.recordBlock(E.W.Kernel.Name, E.RunBlocksPerSm, *Sample);
  if (C.What == Completion::Paused) {
    notePause(E, C);
    E.StrandedByVacate = E.Info.State == WorkState::Running && !C.BlocksRun;
    E.Info.State = WorkState::Paused;
    return;
  }
  if (E.Info.Class == PriorityClass::LatencyCritical && E.W.Slo &&
      C.At - E.Info.SubmittedAt > *E.W.Slo)
    ++SloMisses;
  finish(C.Id, E, C.At);
}

/// What a PTB run that was asked to pause, ran blocks and stopped says about
/// its kernel at the occupancy it ran at: the drain, from the ask to the
/// completion the host saw (PromptModel). Only a timed run whose
/// blocks began before the ask counts: one that started later (queued
/// behind other work, or behind the LC kernel that paused it) ran its
/// first shares after the LC work, which did not wait for them. Runs with
/// SMs vacated are left out too (their workers ran where the hardware put
/// them).
void Scheduler::State::notePause(Entry &E, const Completion &C) {
  std::optional<Nanos> Asked = std::exchange(E.PauseAskedAt, std::nullopt);
  if (!Options.PromptFromPauses || !Asked ||
      E.Info.State != WorkState::Pausing ||
      E.Info.LaunchForm != Form::Ptb || E.RunVacated || !C.BlocksRun ||
      !C.Measured || C.At - C.Elapsed > *Asked)
    return;
  const std::string &Name = E.W.Kernel.Name;
  Nanos Drain = C.At - *Asked;
  Prompts.recordPause(Name, E.RunBlocksPerSm, Drain);
  BATON_TRACE("drain of '%s' at %u per SM: %lld us (limit now %u)",
              Name.c_str(), E.RunBlocksPerSm,
              static_cast<long long>(Drain.count() / 1000),
              Prompts.limit(Name));
}

/// Marks \p E Done and takes it out of the LC set or its BE queue (usually
/// as the head; IssueAtOnce work behind it may finish in the same poll).
void Scheduler::State::finish(uint64_t Id, Entry &E, Nanos At) {
  E.Info.State = WorkState::Done;
  E.Info.DoneAt = At;
  --Outstanding;
  if (ActiveLc.erase(Id))
    LastLcDone = At;
  External.erase(Id);
  if (E.Info.Class == PriorityClass::BestEffort) {
    auto &Queue = Queues.at(E.W.Queue);
    auto Pos = std::find(Queue.begin(), Queue.end(), Id);
    assert(Pos != Queue.end() && "BE work missing from its queue");
    bool WasHead = Pos == Queue.begin();
    Queue.erase(Pos);
    if (Queue.empty())
      Queues.erase(E.W.Queue);
    else if (WasHead)
      Entries.at(Queue.front()).HeadSince = At;
  }
  if (Options.ForgetDoneWork)
    Entries.erase(Id);
}

/// Work whose launch, pause or resume failed in the executor is given up:
/// the runtime released its client stream when it failed, and the work
/// behind it in its queue must not wait for it forever.
void Scheduler::State::abandon(uint64_t Id) {
  auto It = Entries.find(Id);
  if (It != Entries.end() && It->second.Info.State != WorkState::Done)
    finish(Id, It->second, Exec.clock().now());
}

template <class F> void Scheduler::State::forWork(uint64_t Id, F Call) {
  try {
    Call();
  } catch (...) {
    abandon(Id);
    throw;
  }
}

Scheduler::State::Room Scheduler::State::room() const {
  Room R;
  if (Draining) {
    R.FreeSms = device().Multiprocessors;
    return R;
  }
  uint32_t Reserved = 0;
  for (const auto &[Id, Choice] : ActiveLc) {
    R.YieldAll |= Choice.How == Sharing::Time;
    Reserved += Choice.Sms;
  }
  uint32_t All = device().Multiprocessors;
  R.FreeSms = All - std::min(Reserved, All);
  R.YieldAll |= R.FreeSms == 0;
  return R;
}

void Scheduler::State::replan() {
  auto [YieldAll, FreeSms] = room();
  // A head whose launch fails is abandoned, which changes Queues and makes
  // the work behind it the new head: plan until no head is new, then report
  // the first failure.
  std::exception_ptr Failure;
  std::set<uint64_t> Planned;
  for (bool NewHeads = true; NewHeads;) {
    std::vector<uint64_t> Heads;
    for (const auto &[Queue, Ids] : Queues)
      if (Planned.insert(Ids.front()).second)
        Heads.push_back(Ids.front());
    NewHeads = false;
    for (uint64_t Id : Heads)
      try {
        planHead(Id, Entries.at(Id), YieldAll, FreeSms);
      } catch (...) {
        if (!Failure)
          Failure = std::current_exception();
        NewHeads = true;
      }
  }
  // Then the launches behind each head, once the heads are settled: those
  // within the window are resumed; those beyond it that were resumed while
  // it was wider (no further) still yield to LC work.
  size_t Ahead = launchesAhead();
  size_t Widest =
      std::max(Options.LaunchesAhead, Options.LaunchesAheadWhenQuiet);
  for (const auto &[Queue, Ids] : Queues) {
    size_t Followers = std::min<size_t>(Ids.size() - 1, Widest);
    for (size_t I = 1; I <= Followers; ++I)
      try {
        Entry &E = Entries.at(Ids[I]);
        if (I <= Ahead)
          planFollower(Ids[I], E, Ids[I - 1], YieldAll, FreeSms);
        else if (E.Info.State == WorkState::Running)
          yieldIfAsked(Ids[I], E, YieldAll, widthFor(E, FreeSms));
      } catch (...) {
        if (!Failure)
          Failure = std::current_exception();
        break; // Ids changed: the abandoned entry left the queue
      }
  }
  if (Failure)
    std::rethrow_exception(Failure);
}

WidthChoice Scheduler::State::widthFor(const Entry &E, uint32_t FreeSms) const {
  const KernelShape &K = E.W.Kernel;
  uint32_t Reserve = std::max(Options.MinReservedSms, LargestLcSms);
  bool Quiet = quiet();
  Nanos Bound = Options.FullWidthWhenQuiet && Quiet ? Nanos::max() : bound();
  uint32_t All = device().Multiprocessors;
  if (Options.ReserveWhileLcAbout && device().CanVacate && !Quiet &&
      Reserve > 0 && All > Reserve) {
    FreeSms = std::min(FreeSms, All - Reserve);
    // LC work of the reserve's size starts there without waiting for the
    // kept SMs, so nothing needs them to drain within the bound: a PTB
    // launch takes every co-resident worker, for every SM. Held to the
    // prompt number per SM it would leave the kept SMs half empty between
    // requests, where the hardware spreads workers over the idle reserve
    // too and those leave (bench/vacate_placement). Slices cannot vacate
    // SMs and keep the bound.
    if (K.HasPtb)
      Bound = Nanos::max();
  }
  return chooseWidth(device(), K, Durations.of(K.Name), FreeSms, Bound,
                     Reserve, Options.ClaimInterval, bound(),
                     Options.PromptFromPauses ? Prompts.limit(K.Name) : 0);
}

WidthChoice Scheduler::State::runningNow(const Entry &E,
                                         const WidthChoice &Choice) const {
  const KernelShape &K = E.W.Kernel;
  if (Choice.LaunchForm == Form::Original || !quiet())
    return Choice;
  WidthChoice Original = originalChoice(device(), K, Durations.of(K.Name));
  if (Options.OriginalForOneWaveWhenQuiet && isOneBlockPerWorker(K, Choice))
    return Original;
  if (Options.OriginalsWhenQuietUpTo.count() > 0 &&
      beOriginalsOnDevice(E) + Original.ExpectedLatency <=
          Options.OriginalsWhenQuietUpTo)
    return Original;
  if (idleAllowsOriginal(E, Original))
    return Original;
  return Choice;
}

bool Scheduler::State::idleAllowsOriginal(const Entry &E,
                                          const WidthChoice &Original) const {
  if (Options.OriginalsWhenIdleWithBlocksUpTo.count() == 0 || !idleSpell())
    return false;
  // Only blocks measured at the original's occupancy: an estimate from a
  // narrower PTB run (fewer workers per SM) may be shorter than the
  // original's blocks beside more of their kind.
  std::optional<Nanos> Block =
      Durations.measuredAt(E.W.Kernel.Name, Original.BlocksPerSm);
  return Block && *Block <= Options.OriginalsWhenIdleWithBlocksUpTo;
}

bool Scheduler::State::keepsRunToBound(uint64_t Id, const Entry &E,
                                       const WidthChoice &Original) const {
  const auto &Ids = Queues.at(E.W.Queue);
  auto Pos = std::find(Ids.begin(), Ids.end(), Id);
  assert(Pos != Ids.end() && "BE work missing from its queue");
  auto [Ahead, Behind] =
      originalsBeside(Ids, static_cast<size_t>(Pos - Ids.begin()));
  return Behind == Nanos(0) ||
         Ahead + Behind + Original.ExpectedLatency <= bound();
}

Nanos Scheduler::State::originalLatency(const Entry &E) const {
  return originalChoice(device(), E.W.Kernel, Durations.of(E.W.Kernel.Name))
      .ExpectedLatency;
}

std::pair<Nanos, Nanos>
Scheduler::State::originalsBeside(const std::deque<uint64_t> &Ids,
                                  size_t Pos) const {
  auto RunOf = [&](auto From, auto To) {
    Nanos Sum{0};
    for (auto It = From; It != To; ++It) {
      const Entry &Other = Entries.at(*It);
      if (Other.Info.LaunchForm != Form::Original ||
          Other.Info.State != WorkState::Running)
        break;
      Sum += originalLatency(Other);
    }
    return Sum;
  };
  auto At = Ids.begin() + static_cast<std::ptrdiff_t>(Pos);
  return {RunOf(std::make_reverse_iterator(At), Ids.rend()),
          RunOf(std::next(At), Ids.end())};
}

bool Scheduler::State::noteExternalSms(uint32_t Sms) {
  if (Sms == 0 || Sms >= device().Multiprocessors)
    return false;
  LargestLcSms = std::max(LargestLcSms, Sms);
  return true;
}

Nanos Scheduler::State::beOriginalsOnDevice(const Entry &Besides) const {
  Nanos Sum{0};
  for (const auto &[Queue, Ids] : Queues)
    for (uint64_t Id : Ids) {
      const Entry &E = Entries.at(Id);
      if (&E != &Besides && E.Info.State == WorkState::Running &&
          E.Info.LaunchForm == Form::Original)
        Sum += originalLatency(E);
    }
  return Sum;
}

bool Scheduler::State::worthRegrowing(const Entry &E) const {
  // The launch's whole expected duration at full width, against the cost of
  // a relaunch and a drain: a short one finishes on its SMs sooner.
  const KernelShape &K = E.W.Kernel;
  BlockDurations Blocks = Durations.of(K.Name);
  Nanos Whole = wholeDeviceDuration(
      device(), K, Blocks.at(blocksPerSm(device().Sm, K, Form::Ptb)),
      Form::Ptb);
  Nanos Relaunch = device().RelaunchOverhead + device().SignalLatency +
                   Blocks.at(E.RunBlocksPerSm);
  return Whole > 4 * Relaunch;
}

void Scheduler::State::setVacated(uint64_t Id, Entry &E, uint32_t Sms) {
  if (E.Info.VacatedSms == Sms)
    return;
  E.Info.VacatedSms = Sms;
  E.RunVacated = std::max(E.RunVacated, Sms);
  ++Vacates;
  forWork(Id, [&] { Exec.vacate(Id, Sms); });
}

void Scheduler::State::launch(uint64_t Id, Entry &E, const WidthChoice &Choice,
                              bool StartPaused, uint64_t After) {
  E.Info.LaunchForm = Choice.LaunchForm;
  E.Info.Width = Choice.Width;
  E.Info.VacatedSms = E.RunVacated = Choice.VacatedSms;
  E.RunBlocksPerSm = Choice.BlocksPerSm;
  E.Info.Launches = 1;
  E.NotStarted = StartPaused;
  if (Choice.LaunchForm == Form::Original)
    ++Originals;
  LaunchRequest R{Id,           &E.W.Kernel, Choice.LaunchForm,
                  Choice.Width, /*HighPriority=*/false, E.W.Queue,
                  &E.W.Payload, StartPaused, After,
                  Choice.ClaimChunk, Choice.VacatedSms};
  if (Options.CoveringFirstShares)
    R.CoveringShareLimit = Choice.CoveringShareLimit;
  R.TimeRuns = timeRuns(E, Choice);
  forWork(Id, [&] { Exec.launch(R); });
}

/// A running variant launch pauses when LC work takes the whole device, or
/// (to be relaunched as \p Choice says) when LC work changes the SMs it may
/// use. A PTB launch that can vacate SMs leaves more of them in place, and
/// is paused to take SMs back only when worthRegrowing.
void Scheduler::State::yieldIfAsked(uint64_t Id, Entry &E, bool YieldAll,
                                    const WidthChoice &Choice) {
  // Draining, a running launch runs to its end: not even a regrowing pause.
  if (E.Info.LaunchForm == Form::Original || Draining)
    return;
  bool Pause = YieldAll;
  if (!Pause && device().CanVacate && E.Info.LaunchForm == Form::Ptb &&
      Choice.VacatedSms != E.Info.VacatedSms) {
    if (Choice.VacatedSms > E.Info.VacatedSms || !worthRegrowing(E))
      return setVacated(Id, E, Choice.VacatedSms);
    Pause = true;
  }
  if (Pause || (device().CanResize && Choice.Width != E.Info.Width)) {
    E.Info.State = WorkState::Pausing;
    E.PauseAskedAt = Exec.clock().now();
    ++Pauses;
    forWork(Id, [&] { Exec.requestPause(Id); });
  }
}

void Scheduler::State::replanDeferringFailures() {
  try {
    replan();
  } catch (...) {
    if (!Deferred)
      Deferred = std::current_exception();
  }
}

/// Resumes paused \p E at \p Choice's width (where the device can resize)
/// and vacated SMs, behind launch \p After if nonzero.
void Scheduler::State::resume(uint64_t Id, Entry &E, const WidthChoice &Choice,
                              uint64_t After) {
  E.Chained = After != 0;
  ++Resumes;
  ++E.Info.Launches;
  // Only a PTB launch can run its original instead (a slice may be issued
  // already).
  if (std::exchange(E.NotStarted, false) &&
      E.Info.LaunchForm == Form::Ptb) {
    WidthChoice Now = runningNow(E, Choice);
    if (Now.LaunchForm == Form::Original && keepsRunToBound(Id, E, Now)) {
      ++Originals;
      E.Info.LaunchForm = Form::Original;
      E.Info.Width = Now.Width;
      E.Info.VacatedSms = E.RunVacated = 0;
      E.RunBlocksPerSm = Now.BlocksPerSm;
      E.Info.State = WorkState::Running;
      forWork(Id, [&] { Exec.resumeAsOriginal(Id, After); });
      return;
    }
  }
  if (device().CanVacate && E.Info.LaunchForm == Form::Ptb)
    setVacated(Id, E, E.StrandedByVacate ? 0 : Choice.VacatedSms);
  E.StrandedByVacate = false;
  E.RunVacated = E.Info.VacatedSms; // a resume brings every worker back
  if (device().CanResize) {
    E.Info.Width = Choice.Width;
    E.RunBlocksPerSm = Choice.BlocksPerSm;
  }
  E.Info.State = WorkState::Running;
  forWork(Id, [&] { Exec.resume(Id, E.Info.Width, After); });
}

void Scheduler::State::planHead(uint64_t Id, Entry &E, bool YieldAll,
                                uint32_t FreeSms) {
  WidthChoice Choice = widthFor(E, FreeSms);
  switch (E.Info.State) {
  case WorkState::Queued:
    // A kernel without variants cannot yield: it waits for a quiet device
    // (or for the drain, which yields nothing).
    if (YieldAll || (Choice.LaunchForm == Form::Original &&
                     !ActiveLc.empty() && !Draining))
      return;
    E.Info.State = WorkState::Running;
    launch(Id, E, runningNow(E, Choice), /*StartPaused=*/false, /*After=*/0);
    return;
  case WorkState::Running:
    yieldIfAsked(Id, E, YieldAll, Choice);
    return;
  case WorkState::Paused: {
    if (!YieldAll)
      resume(Id, E, Choice, /*After=*/0);
    return;
  }
  case WorkState::Pausing:
  case WorkState::Done:
    return;
  }
}

/// A launch behind the head, within SchedulerOptions::LaunchesAhead. Issued
/// paused (IssueAtOnce), it would wait for the launch ahead to complete and
/// for a host round trip to resume it; while the launches ahead run
/// unhindered it is resumed at once instead, behind the launch ahead on the
/// device, so the queue's launches follow each other with no gap. It
/// yields to LC work like the head.
void Scheduler::State::planFollower(uint64_t Id, Entry &E, uint64_t AheadId,
                                    bool YieldAll, uint32_t FreeSms) {
  const Entry &Ahead = Entries.at(AheadId);
  WidthChoice Choice = widthFor(E, FreeSms);
  switch (E.Info.State) {
  case WorkState::Running:
    yieldIfAsked(Id, E, YieldAll, Choice);
    return;
  case WorkState::Paused: {
    if (mayFollow(Ahead, YieldAll))
      resume(Id, E, Choice, AheadId);
    return;
  }
  case WorkState::Queued:
  case WorkState::Pausing:
  case WorkState::Done:
    return;
  }
}

/// IssueAtOnce work that is not its queue's running head. Within the window
/// of launches that follow a running head (launchesAhead), while LC work
/// leaves room, it is issued running behind the launch ahead: its stream
/// starts it when that one completes, as planFollower's resume would, but
/// without a pause and a resume on the way. Otherwise it is issued paused,
/// and resumed by planHead or planFollower. A kernel without variants cannot
/// wait paused, so it is issued running: the stream orders it anyway.
void Scheduler::State::issueAtOnce(uint64_t Id, Entry &E) {
  const auto &Ids = Queues.at(E.W.Queue);
  assert(Ids.back() == Id && "submitted work is last in its queue");
  size_t Pos = Ids.size() - 1;
  Room R = room();
  uint64_t AheadId = Pos > 0 ? Ids[Pos - 1] : 0;
  bool Follows = AheadId && Pos <= launchesAhead() &&
                 mayFollow(Entries.at(AheadId), R.YieldAll);
  WidthChoice Choice = Follows
                           ? runningNow(E, widthFor(E, R.FreeSms))
                           : widthFor(E, device().Multiprocessors);
  // Beyond the window, an idle device's original of short blocks is issued
  // running too, behind whatever has been issued ahead of it (its stream
  // orders it): paused and resumed on a stream of its own, each such launch
  // waited on the device for two waits across streams. The originals so
  // issued in a row are held to the bound, since the first LC work after
  // the idle spell shares SMs with them until the next launch that can
  // pause stops the stream.
  if (AheadId && !Follows && idleSpell() &&
      Entries.at(AheadId).Info.State != WorkState::Queued) {
    WidthChoice Original =
        originalChoice(device(), E.W.Kernel, Durations.of(E.W.Kernel.Name));
    if (idleAllowsOriginal(E, Original) &&
        originalsBeside(Ids, Pos).first + Original.ExpectedLatency <=
            bound()) {
      Choice = Original;
      Follows = true;
    }
  }
  bool Paused = !Follows && Choice.LaunchForm != Form::Original;
  E.Info.State = Paused ? WorkState::Paused : WorkState::Running;
  E.Chained = Follows;
  launch(Id, E, Choice, Paused, Follows ? AheadId : 0);
}

Scheduler::Scheduler(Executor &Exec, const SchedulerOptions &Options)
    : S(std::make_unique<State>(Exec, Options)) {}

Scheduler::~Scheduler() = default;

uint64_t Scheduler::submit(Work W) {
  uint64_t Id = S->NextId++;
  Entry &E = S->Entries[Id];
  E.W = std::move(W);
  E.Info.Class = E.W.Class;
  E.Info.SubmittedAt = S->Exec.clock().now();
  ++S->Outstanding;
  try {
    bool Behind = false; // BE work that joins a queue behind its head
    if (E.W.Class == PriorityClass::LatencyCritical) {
      S->startLc(Id, E);
    } else {
      auto &Queue = S->Queues[E.W.Queue];
      Queue.push_back(Id);
      Behind = Queue.size() > 1;
    }
    // IssueAtOnce work behind a head changes nothing for the work before
    // it: the replan after its issue is enough (submit is on the path of
    // every launch of a training job).
    if (!(E.W.IssueAtOnce && Behind))
      S->replan();
    if (E.W.IssueAtOnce && E.Info.State == WorkState::Queued) {
      S->issueAtOnce(Id, E);
      S->replan(); // issued paused, it may still follow the head at once
    }
  } catch (...) {
    auto It = S->Entries.find(Id);
    if (It == S->Entries.end() || It->second.Info.State == WorkState::Done)
      throw; // the submitted work itself was given up
    S->Deferred = std::current_exception();
  }
  return Id;
}

void Scheduler::poll() {
  if (S->Deferred)
    std::rethrow_exception(std::exchange(S->Deferred, nullptr));
  std::vector<Completion> Done = S->Exec.poll();
  if (Done.empty())
    return;
  for (const Completion &C : Done)
    S->complete(C);
  S->replan();
}

uint64_t Scheduler::beginExternal(uint32_t Sms) {
  uint64_t Id = S->NextId++;
  Entry &E = S->Entries[Id];
  E.W.Class = PriorityClass::LatencyCritical;
  E.W.Kernel.Name = "<external>";
  E.Info.Class = PriorityClass::LatencyCritical;
  E.Info.State = WorkState::Running;
  E.Info.SubmittedAt = S->Exec.clock().now();
  SharingChoice Choice;
  if (S->noteExternalSms(Sms))
    Choice = {Sharing::Space, Sms};
  E.Info.HowShared = Choice.How;
  S->ActiveLc[Id] = Choice;
  S->External.insert(Id);
  ++S->Outstanding;
  S->replanDeferringFailures();
  return Id;
}

void Scheduler::endExternal(uint64_t Id) {
  if (!S->External.count(Id))
    throw std::invalid_argument("baton::sched::Scheduler: no external LC "
                                "work " + std::to_string(Id) + " in progress");
  S->finish(Id, S->Entries.at(Id), S->Exec.clock().now());
  S->replanDeferringFailures();
}

void Scheduler::noteExternal(uint32_t Sms) {
  S->noteExternalSms(Sms);
  S->LastLcDone = S->Exec.clock().now();
}

void Scheduler::setPeersPresent(bool Present) { S->PeersPresent = Present; }

const SchedulerOptions &Scheduler::options() const { return S->Options; }

bool Scheduler::idle() const { return S->Outstanding == 0; }

uint64_t Scheduler::outstanding() const { return S->Outstanding; }

bool Scheduler::bestEffortIdle() const { return S->Queues.empty(); }

std::exception_ptr Scheduler::takeDeferredFailure() {
  return std::exchange(S->Deferred, nullptr);
}

void Scheduler::drainBestEffort(bool On) {
  if (std::exchange(S->Draining, On) != On)
    S->replanDeferringFailures();
}

size_t Scheduler::queued(uint32_t Queue) const {
  auto It = S->Queues.find(Queue);
  return It == S->Queues.end() ? 0 : It->second.size();
}

WorkInfo Scheduler::info(uint64_t Id) const {
  auto It = S->Entries.find(Id);
  if (It == S->Entries.end())
    throw std::out_of_range("baton::sched::Scheduler: no work " +
                            std::to_string(Id));
  return It->second.Info;
}

Nanos Scheduler::blockDuration(const std::string &Name) const {
  return S->Durations.latest(Name);
}

uint64_t Scheduler::sloMisses() const { return S->SloMisses; }
uint64_t Scheduler::resumes() const { return S->Resumes; }
uint64_t Scheduler::pauses() const { return S->Pauses; }
uint64_t Scheduler::vacates() const { return S->Vacates; }
uint64_t Scheduler::originals() const { return S->Originals; }
