//===- SchedulerSim.cpp - A simulated device for the scheduler ------------===//
//
// Discrete events on a virtual clock (SchedulerSim.h gives the model). Each
// (re)launch bumps the launch's epoch; events of an older epoch are stale and
// ignored, so a resume can never be confused with the launch it replaced.
//
//===----------------------------------------------------------------------===//

#include "baton/SchedulerSim.h"

#include "baton/Scheduler.h"
#include "SchedulerPolicy.h"
#include "baton/task.h"

#include <algorithm>
#include <deque>
#include <map>
#include <queue>
#include <stdexcept>
#include <utility>

using namespace baton::sched;

void VirtualClock::advanceTo(Nanos T) {
  if (T < Now)
    throw std::logic_error("VirtualClock: time cannot go backwards");
  Now = T;
}

namespace {

enum class LaunchState { Running, Pausing, Paused, Done };

struct Use {
  uint32_t Threads = 0, Registers = 0, Shared = 0, Blocks = 0;
};

struct SimLaunch {
  uint64_t Id = 0;
  Form F = Form::Original;
  bool High = false;
  Nanos Block{0};
  Nanos SlowerPerNeighbour{0};
  uint32_t ClaimsStarveAbove = 0; ///< see SimKernel
  Use PerBlock;
  uint32_t Width = 0;
  uint32_t Chunk = 1; ///< PTB: blocks per claim
  uint32_t End = 0;
  uint32_t Next = 0; ///< PTB cursor, or the next block to issue
  /// PTB: the cursor as workers starting at StartViewAt read it. Workers
  /// that start together read it before any of them claims, as on the
  /// device, and size their first claims by that view.
  uint32_t StartView = 0;
  std::optional<Nanos> StartViewAt;
  /// PTB: the current run's first shares (task.h), which only a first run
  /// has, as in the runtime: one issued without a watermark, at the width
  /// it was issued with; the cursor starts past them.
  uint32_t FirstShare = 0;
  uint32_t FirstShareWidth = 0; ///< the width the shares were made for
  uint32_t Watermark = 0;       ///< PTB: as the host last wrote it
  uint64_t Epoch = 0;
  LaunchState State = LaunchState::Running;
  bool PreemptVisible = false;
  Nanos PreemptVisibleAt{0};
  /// Ptb: the vacate watermark as the workers see it.
  uint32_t WatermarkVisible = 0;
  /// The current run saw a nonzero watermark: it may end with work left.
  bool VacatedRun = false;
  bool Arrived = false; ///< the current run has reached the device
  /// A resume behind this launch, not yet Done, on the same stream: the
  /// (re)launch arrives only once that one is Done.
  uint64_t WaitingFor = 0;
  uint32_t Active = 0;  ///< blocks or workers on SMs
  uint32_t Pending = 0; ///< blocks or workers waiting for room
  uint32_t WorkersLeft = 0; ///< PTB: this run's, at preempt or watermark
  std::map<uint32_t, uint32_t> SliceLeft; ///< slice begin -> blocks not done
  // The interval since the last (re)launch, for Completion.
  std::optional<Nanos> FirstBlock;
  Nanos LastEnd{0};
  uint64_t BlocksRun = 0;
  SimRecord Rec;
};

/// Blocks of one launch waiting for room: Count of them, numbered from V
/// (Original, Slices) or identical workers (Ptb).
struct PendingRange {
  uint64_t Launch;
  uint32_t V;
  uint32_t Count;
  uint32_t Slice;
};

enum class EventKind { Arrive, Signal, Watermark, BlockEnd };

struct Event {
  Nanos At;
  uint64_t Seq;
  EventKind Kind;
  uint64_t Launch;
  uint64_t Epoch;
  uint32_t Sm = 0;
  uint32_t V = 0;
  uint32_t Slice = 0; ///< Slices: the slice's begin; Ptb: end of the claim;
                      ///< Watermark: its value
  uint32_t View = 0;  ///< Ptb: the worker's view of the cursor
  uint32_t Step = 1;  ///< Ptb: the claim's step (workers for a first share)
  bool operator>(const Event &O) const {
    return At != O.At ? At > O.At : Seq > O.Seq;
  }
};

} // namespace

struct SimulatedExecutor::Impl {
  DeviceFacts Facts;
  Nanos KernelLaunchLatency;
  Placement Where = Placement::Pack;
  VirtualClock Time;
  std::vector<Use> Sms;
  std::map<uint64_t, SimLaunch> Launches;
  std::deque<PendingRange> HighQueue, LowQueue;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> Events;
  uint64_t Seq = 0;
  std::vector<Completion> Completed;

  SimLaunch &get(uint64_t Id);
  void schedule(EventKind K, Nanos At, const SimLaunch &L, uint32_t Sm = 0,
                uint32_t V = 0, uint32_t Slice = 0, uint32_t View = 0,
                uint32_t Step = 1);
  void relaunch(SimLaunch &L);
  /// \p L's next (re)launch arrives only once launch \p After (0: none)
  /// of its stream is Done.
  void queueBehind(SimLaunch &L, uint64_t After);
  void arrive(SimLaunch &L, Nanos Latency);
  void releaseWaiters(const SimLaunch &Done);
  void enqueue(SimLaunch &L, uint32_t V, uint32_t Count, uint32_t Slice);
  void issueSlices(SimLaunch &L);
  bool fits(const Use &Sm, const Use &Need) const;
  std::optional<uint32_t> findSm(const Use &Need, uint32_t From) const;
  void dispatch();
  void startBlock(SimLaunch &L, uint32_t Sm, uint32_t V, uint32_t Slice,
                  uint32_t View = 0, uint32_t Step = 1);
  void fetch(SimLaunch &L, uint32_t Sm, uint32_t Last, uint32_t Lim,
             uint32_t View, uint32_t Step, bool FirstClaim);
  void leaveSm(SimLaunch &L, uint32_t Sm);
  /// Takes \p L's blocks or workers still waiting for room off the queues.
  void dropPending(SimLaunch &L);
  /// Whether a PTB worker of \p L on \p Sm, claiming now with the flag
  /// visible, read it before it was (SimKernel::ClaimsStarveAbove).
  bool claimReadFlagStale(const SimLaunch &L, uint32_t Sm) const;
  /// How long a block of \p L takes on \p Sm beside the blocks there now
  /// (SimKernel::SlowerPerNeighbour).
  Nanos blockDuration(const SimLaunch &L, uint32_t Sm) const;
  void handle(const Event &E);
  void settle(SimLaunch &L);
};

SimLaunch &SimulatedExecutor::Impl::get(uint64_t Id) {
  auto It = Launches.find(Id);
  if (It == Launches.end())
    throw std::logic_error("SimulatedExecutor: no launch " +
                           std::to_string(Id));
  return It->second;
}

void SimulatedExecutor::Impl::schedule(EventKind K, Nanos At,
                                       const SimLaunch &L, uint32_t Sm,
                                       uint32_t V, uint32_t Slice,
                                       uint32_t View, uint32_t Step) {
  Events.push({At, Seq++, K, L.Id, L.Epoch, Sm, V, Slice, View, Step});
}

void SimulatedExecutor::Impl::queueBehind(SimLaunch &L, uint64_t After) {
  if (After && get(After).State != LaunchState::Done)
    L.WaitingFor = After;
}

void SimulatedExecutor::Impl::relaunch(SimLaunch &L) {
  if (L.Epoch > 0)
    L.FirstShare = 0; // the first run's workers ran their shares
  ++L.Epoch;
  L.State = LaunchState::Running;
  L.PreemptVisible = false;
  L.VacatedRun = L.WatermarkVisible != 0;
  L.Arrived = false;
  L.FirstBlock.reset();
  L.StartViewAt.reset(); // even a run started at once reads the cursor anew
  L.BlocksRun = 0;
  L.WorkersLeft = 0;
  L.Rec.Widths.push_back(L.Width);
  if (L.WaitingFor)
    return; // releaseWaiters() schedules the arrival
  arrive(L, L.F == Form::Original ? KernelLaunchLatency
                                  : Facts.RelaunchOverhead);
}

void SimulatedExecutor::Impl::arrive(SimLaunch &L, Nanos Latency) {
  schedule(EventKind::Arrive, Time.now() + Latency, L);
}

/// Launches resumed behind \p Done start now: their stream's wait is over,
/// and the device starts the work queued behind it without the host.
void SimulatedExecutor::Impl::releaseWaiters(const SimLaunch &Done) {
  for (auto &[Id, L] : Launches)
    if (L.WaitingFor == Done.Id) {
      L.WaitingFor = 0;
      arrive(L, KernelLaunchLatency);
    }
}

void SimulatedExecutor::Impl::enqueue(SimLaunch &L, uint32_t V, uint32_t Count,
                                      uint32_t Slice) {
  if (!Count)
    return;
  (L.High ? HighQueue : LowQueue).push_back({L.Id, V, Count, Slice});
  L.Pending += Count;
}

void SimulatedExecutor::Impl::issueSlices(SimLaunch &L) {
  while (L.State == LaunchState::Running &&
         L.SliceLeft.size() < Facts.SliceWindow && L.Next < L.End) {
    uint32_t Count = std::min(L.Width, L.End - L.Next);
    L.SliceLeft[L.Next] = Count;
    enqueue(L, L.Next, Count, L.Next);
    L.Next += Count;
  }
}

bool SimulatedExecutor::Impl::fits(const Use &Sm, const Use &Need) const {
  const SmLimits &Max = Facts.Sm;
  return Sm.Threads + Need.Threads <= Max.MaxThreads &&
         Sm.Registers + Need.Registers <= Max.Registers &&
         Sm.Shared + Need.Shared <= Max.SharedMemBytes &&
         Sm.Blocks + Need.Blocks <= Max.MaxBlocks;
}

std::optional<uint32_t> SimulatedExecutor::Impl::findSm(const Use &Need,
                                                        uint32_t From) const {
  std::optional<uint32_t> Best;
  for (uint32_t I = From; I < Sms.size(); ++I) {
    if (!fits(Sms[I], Need))
      continue;
    if (Where == Placement::Pack)
      return I;
    if (!Best || Sms[I].Blocks < Sms[*Best].Blocks)
      Best = I;
  }
  return Best;
}

void SimulatedExecutor::Impl::dispatch() {
  for (;;) {
    auto &Queue = !HighQueue.empty() ? HighQueue : LowQueue;
    if (Queue.empty())
      return;
    PendingRange &R = Queue.front();
    SimLaunch &L = get(R.Launch);
    // Workers holding first shares go anywhere, as the hardware places
    // them: one on a vacated SM runs its share before it leaves.
    uint32_t From = L.F == Form::Ptb && !L.FirstShare ? L.WatermarkVisible : 0;
    auto Sm = findSm(L.PerBlock, From);
    if (!Sm && From && findSm(L.PerBlock, 0)) {
      // Room only on a vacated SM: the worker placed there leaves at once.
      if (--R.Count == 0)
        Queue.pop_front();
      --L.Pending;
      ++L.WorkersLeft;
      settle(L);
      continue;
    }
    if (!Sm)
      return; // a high-priority block that does not fit holds back the rest
    uint32_t V = R.V++;
    uint32_t Slice = R.Slice;
    if (--R.Count == 0)
      Queue.pop_front();
    --L.Pending;
    Use &U = Sms[*Sm];
    U.Threads += L.PerBlock.Threads;
    U.Registers += L.PerBlock.Registers;
    U.Shared += L.PerBlock.Shared;
    U.Blocks += 1;
    ++L.Active;
    if (!L.FirstBlock)
      L.FirstBlock = Time.now();
    if (!L.Rec.FirstBlockAt)
      L.Rec.FirstBlockAt = Time.now();
    if (L.F == Form::Ptb) { // V is the worker's index; cursor as read
      if (L.StartViewAt != Time.now()) {
        L.StartView = L.Next;
        L.StartViewAt = Time.now();
      }
      // Its share: blocks V, V + Width, ... below Width * FirstShare
      // (none if FirstShare is 0), one stride before the first.
      uint32_t Step = std::max<uint32_t>(L.Width, 1);
      fetch(L, *Sm, V - Step, std::min(Step * L.FirstShare, L.End),
            L.StartView, Step, /*FirstClaim=*/true);
    } else
      startBlock(L, *Sm, V, Slice);
  }
}

void SimulatedExecutor::Impl::startBlock(SimLaunch &L, uint32_t Sm, uint32_t V,
                                         uint32_t Slice, uint32_t View,
                                         uint32_t Step) {
  schedule(EventKind::BlockEnd, Time.now() + blockDuration(L, Sm), L, Sm, V,
           Slice, View, Step);
}

// The PTB worker loop of task.h: after block Last of the claim that ends at
// Lim, run the claim's next block, Step on; else leave if the worker's View
// of the cursor is at the end, stop on `preempt`, or claim more blocks from
// the cursor: up to Chunk, fewer near the end (the variants' guided claims,
// lib/Transform/PtbVariant.cpp: a worker's first claim takes its share
// rounded up, later ones half the share they see).
void SimulatedExecutor::Impl::fetch(SimLaunch &L, uint32_t Sm, uint32_t Last,
                                    uint32_t Lim, uint32_t View,
                                    uint32_t Step, bool FirstClaim) {
  uint32_t V = Last + Step;
  if (V >= Lim) {
    if (View >= L.End)
      return leaveSm(L, Sm); // no claim could get a block
    if ((L.PreemptVisible && !claimReadFlagStale(L, Sm)) ||
        Sm < L.WatermarkVisible) {
      ++L.WorkersLeft;
      return leaveSm(L, Sm);
    }
    uint32_t Workers = std::max<uint32_t>(L.Width, 1);
    uint32_t Share = FirstClaim ? (L.End - View - 1) / Workers + 1
                                : (L.End - View) / (2 * Workers);
    uint32_t Size = std::clamp(Share, 1u, L.Chunk);
    V = L.Next;
    Lim = V + Size;
    View = Lim;
    Step = 1;
    L.Next = Lim;
    ++L.Rec.Claims;
  }
  if (V >= L.End)
    return leaveSm(L, Sm);
  startBlock(L, Sm, V, Lim, View, Step);
}

bool SimulatedExecutor::Impl::claimReadFlagStale(const SimLaunch &L,
                                                 uint32_t Sm) const {
  if (!L.ClaimsStarveAbove || Sms[Sm].Blocks <= L.ClaimsStarveAbove)
    return false;
  return Time.now() - L.PreemptVisibleAt < blockDuration(L, Sm);
}

Nanos SimulatedExecutor::Impl::blockDuration(const SimLaunch &L,
                                             uint32_t Sm) const {
  return L.Block +
         L.SlowerPerNeighbour * static_cast<int64_t>(Sms[Sm].Blocks - 1);
}

void SimulatedExecutor::Impl::leaveSm(SimLaunch &L, uint32_t Sm) {
  Use &U = Sms[Sm];
  U.Threads -= L.PerBlock.Threads;
  U.Registers -= L.PerBlock.Registers;
  U.Shared -= L.PerBlock.Shared;
  U.Blocks -= 1;
  --L.Active;
  settle(L);
}

void SimulatedExecutor::Impl::dropPending(SimLaunch &L) {
  if (L.F == Form::Ptb && L.FirstShare)
    return; // they run their shares wherever they land, then leave
  for (auto *Queue : {&HighQueue, &LowQueue})
    std::erase_if(*Queue, [&](const PendingRange &R) {
      if (R.Launch != L.Id)
        return false;
      L.Pending -= R.Count;
      if (L.F == Form::Ptb) // each would start and leave at its first check
        L.WorkersLeft += R.Count;
      return true;
    });
}

/// Reports the launch Paused or Done once nothing of it is left on the
/// device or waiting for room.
void SimulatedExecutor::Impl::settle(SimLaunch &L) {
  if (L.Active || L.Pending || !L.SliceLeft.empty())
    return;
  if (L.State == LaunchState::Paused || L.State == LaunchState::Done)
    return;
  if (L.WaitingFor)
    return; // not started: its drain is seen only after it has
  if (L.F == Form::Ptb && L.FirstShare && !L.Arrived)
    return; // its workers have their shares to run, paused or not
  bool Finished = L.Next >= L.End;
  // A PTB run whose every worker left a vacated SM stops with work left.
  bool Vacated = L.F == Form::Ptb && L.VacatedRun && L.Arrived;
  if (!Finished && L.State != LaunchState::Pausing && !Vacated)
    return; // between slices, or not arrived yet
  L.State = Finished ? LaunchState::Done : LaunchState::Paused;
  if (!Finished)
    ++L.Rec.Pauses;
  Nanos Start = L.FirstBlock.value_or(Time.now());
  Nanos Elapsed = L.BlocksRun ? L.LastEnd - Start : Nanos(0);
  Completed.push_back({L.Id, Finished ? Completion::Done : Completion::Paused,
                       Time.now(), Elapsed, L.BlocksRun, L.Rec.TimeRuns,
                       L.WorkersLeft});
  if (Finished)
    releaseWaiters(L);
}

void SimulatedExecutor::Impl::handle(const Event &E) {
  SimLaunch &L = get(E.Launch);
  switch (E.Kind) {
  case EventKind::Arrive:
    if (E.Epoch != L.Epoch)
      return;
    L.Arrived = true;
    if (L.F == Form::Slices)
      issueSlices(L);
    else if (L.F == Form::Original) {
      enqueue(L, 0, L.End, 0);
      L.Next = L.End; // every block is issued at once
    }
    else if (L.FirstShare ||
             (!L.PreemptVisible && L.WatermarkVisible < Sms.size()))
      enqueue(L, 0, L.Width, 0);
    else
      L.WorkersLeft += L.Width; // every worker leaves at its first check
    settle(L);
    return;
  case EventKind::Signal:
    if (E.Epoch != L.Epoch || L.State != LaunchState::Pausing)
      return;
    L.PreemptVisible = true;
    L.PreemptVisibleAt = Time.now();
    // Workers still waiting for an SM would leave at their first check.
    dropPending(L);
    settle(L);
    return;
  case EventKind::Watermark:
    // Writes reach the device in the order they were made (one latency),
    // and a relaunch keeps the task's watermark: every one applies.
    L.WatermarkVisible = E.Slice;
    L.VacatedRun |= E.Slice != 0;
    // Workers waiting for room would be placed at or above it; with no SM
    // left there, they leave at their first check.
    if (L.WatermarkVisible >= Sms.size())
      dropPending(L);
    settle(L);
    return;
  case EventKind::BlockEnd:
    ++L.Rec.RunCount[E.V];
    ++L.BlocksRun;
    L.LastEnd = Time.now();
    if (L.F == Form::Ptb)
      return fetch(L, E.Sm, E.V, E.Slice, E.View, E.Step,
                   /*FirstClaim=*/false);
    if (L.F == Form::Slices && --L.SliceLeft[E.Slice] == 0) {
      L.SliceLeft.erase(E.Slice);
      issueSlices(L);
    }
    leaveSm(L, E.Sm);
    return;
  }
}

SimulatedExecutor::SimulatedExecutor(const DeviceFacts &Facts,
                                     Nanos KernelLaunchLatency,
                                     Placement Where)
    : P(std::make_unique<Impl>()) {
  P->Facts = Facts;
  P->KernelLaunchLatency = KernelLaunchLatency;
  P->Where = Where;
  P->Sms.resize(Facts.Multiprocessors);
}

SimulatedExecutor::~SimulatedExecutor() = default;

const DeviceFacts &SimulatedExecutor::facts() const { return P->Facts; }
const Clock &SimulatedExecutor::clock() const { return P->Time; }

void SimulatedExecutor::launch(const LaunchRequest &R) {
  const auto *Kernel = R.Payload ? std::any_cast<SimKernel>(R.Payload) : nullptr;
  if (!Kernel || !R.Shape)
    throw std::invalid_argument("SimulatedExecutor: launch " +
                                std::to_string(R.Id) +
                                " carries no SimKernel payload");
  SimLaunch &L = P->Launches[R.Id];
  L.Id = R.Id;
  L.F = R.LaunchForm;
  L.High = R.HighPriority;
  L.Block = Kernel->BlockDuration;
  L.SlowerPerNeighbour = Kernel->SlowerPerNeighbour;
  L.ClaimsStarveAbove = Kernel->ClaimsStarveAbove;
  const KernelShape &K = *R.Shape;
  uint32_t Threads = std::max<uint32_t>(K.ThreadsPerBlock, 1);
  L.PerBlock = {Threads, K.RegistersPerThread * Threads,
                K.SharedMemBytes +
                    (R.LaunchForm == Form::Ptb ? BATON_PTB_DYNAMIC_SHARED_BYTES
                                               : 0),
                1};
  L.End = static_cast<uint32_t>(K.Blocks);
  L.Width = R.Width;
  L.Chunk = std::max<uint32_t>(R.ClaimChunk, 1);
  if (R.VacatedSms && (!P->Facts.CanVacate || R.LaunchForm != Form::Ptb))
    throw std::logic_error("SimulatedExecutor: launch " +
                           std::to_string(R.Id) + " cannot vacate SMs");
  L.WatermarkVisible = L.Watermark = R.VacatedSms; // in the task from the start
  L.Rec.LaunchForm = R.LaunchForm;
  L.Rec.HighPriority = R.HighPriority;
  L.Rec.TimeRuns = R.TimeRuns;
  L.Rec.IssuedAt = P->Time.now();
  L.Rec.RunCount.assign(L.End, 0);
  // As the runtime: no shares for workers that do not all fit at once.
  if (L.F == Form::Ptb && !R.VacatedSms &&
      L.Width <= blocksPerWave(P->Facts, K, Form::Ptb)) {
    uint32_t Claimed = 0;
    L.FirstShare = baton_first_shares(0, L.End, L.Width, L.Chunk,
                                      R.CoveringShareLimit, &Claimed);
    L.FirstShareWidth = std::min(L.Width, L.End); // as the runtime clamps it
    L.Next = Claimed;
  }
  if (R.StartPaused) {
    L.State = LaunchState::Paused; // issued, nothing runs until resume()
    return;
  }
  P->queueBehind(L, R.After);
  P->relaunch(L);
}

void SimulatedExecutor::requestPause(uint64_t Id) {
  SimLaunch &L = P->get(Id);
  // A launch whose workers all left vacated SMs stopped on its own; its
  // Paused completion is on its way, as the runtime's would be.
  if (L.F == Form::Ptb && L.State == LaunchState::Paused && L.VacatedRun)
    return;
  if (L.F == Form::Original || L.State != LaunchState::Running)
    throw std::logic_error("SimulatedExecutor: launch " + std::to_string(Id) +
                           " cannot be paused now");
  L.State = LaunchState::Pausing;
  if (L.F == Form::Ptb)
    P->schedule(EventKind::Signal, P->Time.now() + P->Facts.SignalLatency, L);
  else
    P->settle(L); // slices: the host just stops issuing
}

void SimulatedExecutor::resume(uint64_t Id, uint32_t Width, uint64_t After) {
  SimLaunch &L = P->get(Id);
  if (L.State != LaunchState::Paused)
    throw std::logic_error("SimulatedExecutor: launch " + std::to_string(Id) +
                           " is not paused");
  if (Width != L.Width && !P->Facts.CanResize)
    throw std::logic_error("SimulatedExecutor: resizing is disabled");
  L.Width = Width;
  // As the runtime: a first run at another width, or with SMs vacated,
  // claims every block.
  if (L.Epoch == 0 && L.FirstShare &&
      (std::min(L.Width, L.End) != L.FirstShareWidth || L.Watermark)) {
    L.FirstShare = 0;
    L.Next = 0;
  }
  P->queueBehind(L, After);
  P->relaunch(L);
}

void SimulatedExecutor::resumeAsOriginal(uint64_t Id, uint64_t After) {
  SimLaunch &L = P->get(Id);
  if (L.F != Form::Ptb || L.State != LaunchState::Paused || L.Epoch != 0)
    throw std::logic_error("SimulatedExecutor: launch " + std::to_string(Id) +
                           " has run, or is not a paused PTB launch");
  L.F = L.Rec.LaunchForm = Form::Original;
  L.PerBlock.Shared -= BATON_PTB_DYNAMIC_SHARED_BYTES;
  L.Width = L.End;
  L.WatermarkVisible = 0;
  P->queueBehind(L, After);
  P->relaunch(L);
}

void SimulatedExecutor::vacate(uint64_t Id, uint32_t Sms) {
  SimLaunch &L = P->get(Id);
  if (!P->Facts.CanVacate || L.F != Form::Ptb)
    throw std::logic_error("SimulatedExecutor: launch " + std::to_string(Id) +
                           " cannot vacate SMs");
  L.Watermark = Sms;
  P->schedule(EventKind::Watermark, P->Time.now() + P->Facts.SignalLatency, L,
              0, 0, Sms);
}

std::vector<Completion> SimulatedExecutor::poll() {
  return std::exchange(P->Completed, {});
}

std::optional<Nanos> SimulatedExecutor::nextEvent() const {
  if (P->Events.empty())
    return std::nullopt;
  return P->Events.top().At;
}

bool SimulatedExecutor::step() {
  if (P->Events.empty())
    return false;
  Nanos At = P->Events.top().At;
  P->Time.advanceTo(At);
  while (!P->Events.empty() && P->Events.top().At == At) {
    Event E = P->Events.top();
    P->Events.pop();
    P->handle(E);
  }
  P->dispatch();
  return true;
}

void SimulatedExecutor::advanceTo(Nanos T) {
  if (auto Next = nextEvent(); Next && *Next < T)
    throw std::logic_error("SimulatedExecutor: events are due before that");
  P->Time.advanceTo(T);
}

const SimRecord &SimulatedExecutor::record(uint64_t Id) const {
  return P->get(Id).Rec;
}

uint32_t SimulatedExecutor::resident(uint64_t Id) const {
  return P->get(Id).Active;
}

void baton::sched::simulateUntil(SimulatedExecutor &Sim, Scheduler &S,
                                 Nanos Until) {
  for (auto Next = Sim.nextEvent(); Next && *Next <= Until;
       Next = Sim.nextEvent()) {
    Sim.step();
    S.poll();
  }
  Sim.advanceTo(Until);
}

void baton::sched::simulateToEnd(SimulatedExecutor &Sim, Scheduler &S) {
  while (Sim.step())
    S.poll();
}
