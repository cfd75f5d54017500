//===- SchedulerService.cpp - The scheduler on a thread of its own --------===//
//
// One mutex guards the scheduler and its executor; submitters and the
// service thread take turns. The thread polls the executor while work is
// outstanding (continuously, or every PollInterval) and sleeps while the
// scheduler is idle. Brackets of external LC work do not take that mutex:
// they are posted to a mailbox, which has a small mutex of its own and
// doubles as the service thread's doorbell.
//
//===----------------------------------------------------------------------===//

#include "baton/SchedulerService.h"

#include "Trace.h"

#include <sys/prctl.h>

#include <condition_variable>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

using namespace baton;
using namespace baton::sched;

struct SchedulerService::Impl {
  Impl(std::unique_ptr<Executor> Owned, Executor &Exec,
       const SchedulerOptions &Options, std::chrono::microseconds Interval)
      : Owned(std::move(Owned)), Exec(Exec), Sched(Exec, Options),
        Interval(Interval) {}

  void loop();
  void rethrowFailure();
  void followPeers(bool WorkComing);
  void followPeersPresence();
  /// Applies the brackets posted since the last call. Called with the lock
  /// held.
  void takeMail();
  /// takeMail() for a client's call: a failure is reported as the service
  /// thread reports its own (waitIdle() rethrows it), not to this client.
  void takeMailReporting();
  /// Wakes the service thread; its next pass also takes the mail.
  void ring();
  /// Releases \p Lock until ring() is called (or, with \p For, that long
  /// has passed), then takes it again.
  void sleep(std::unique_lock<std::mutex> &Lock,
             std::optional<std::chrono::microseconds> For = std::nullopt);
  /// Wakes submitters waiting for room in a queue, if any: called after
  /// anything that may have taken BE work out of a queue (completions, and
  /// work given up when a launch, pause or resume fails, which any replan
  /// may do). Called with the lock held.
  void notifyRoom() {
    if (RoomWaiters)
      Room.notify_all();
  }
  /// notifyRoom() at the end of a scope that holds the lock, thrown or not.
  struct RoomNotice {
    Impl &I;
    ~RoomNotice() { I.notifyRoom(); }
  };

  std::unique_ptr<Executor> Owned; ///< the RuntimeExecutor, if made here
  Executor &Exec;
  Scheduler Sched;
  std::chrono::microseconds Interval;

  /// A bracket's begin, end or renewal, as posted by beginExternal(),
  /// endExternal() or renewExternal().
  enum class Change { Begins, Ends, Renewed };
  struct Posted {
    uint64_t Bracket;
    uint32_t Sms;
    Change What;
  };
  /// Ends the effect of brackets taken (or renewed) longer than Lease ago,
  /// each under \p Guarded (takeMail()'s: one that throws leaves none of
  /// the others paused). Called with the lock held, by takeMail().
  template <typename Guard>
  void expireBrackets(std::chrono::steady_clock::time_point Now,
                      Guard &Guarded);
  /// Guards the members below it up to Mutex; may be taken while Mutex is
  /// held, never the other way round.
  std::mutex MailMutex;
  std::condition_variable Bell;
  bool Rung = false;
  std::vector<Posted> Mail;
  std::set<uint64_t> OpenBrackets; ///< begun, end not yet posted
  uint64_t NextBracket = 1;
  uint64_t BracketsBegun = 0;

  mutable std::mutex Mutex; ///< guards everything below and Sched
  /// A bracket whose begin has been taken: the scheduler's id of it, and
  /// when it was taken or last renewed.
  struct TakenBracket {
    uint64_t Id;
    std::chrono::steady_clock::time_point Since;
  };
  std::unordered_map<uint64_t, TakenBracket> Brackets;
  std::chrono::microseconds Linger{0}; ///< see lingerAfterBrackets()
  std::chrono::microseconds Lease{0};  ///< see leaseBrackets()
  /// Brackets whose end has been taken but lingers until LingerUntil.
  std::vector<uint64_t> Lingering;
  std::chrono::steady_clock::time_point LingerUntil;
  std::condition_variable Idle;
  std::condition_variable Room; ///< BE work left a queue: it may have room
  size_t RoomWaiters = 0;       ///< submitters and holders waiting on Room
  size_t Holds = 0;             ///< see holdBestEffort()
  size_t Draining = 0; ///< holds waiting while the scheduler drains BE work
  bool Stopping = false;
  std::exception_ptr Failure;
  ServiceStats Counts;
  std::function<bool()> PeersBusy; ///< see yieldWhile()
  std::function<bool()> PeersPresent; ///< see peersPresentWhile()
  uint64_t PeersWork = 0; ///< external work standing for peers, 0 if none
  std::thread Thread;
};

/// Only the idle originals ask whether peers are present: the probe is not
/// called while they are off.
void SchedulerService::Impl::followPeersPresence() {
  if (PeersPresent &&
      Sched.options().OriginalsWhenIdleWithBlocksUpTo.count() > 0)
    Sched.setPeersPresent(PeersPresent());
}

/// Begins or ends the external work that stands for peers' LC work. It is
/// held only while the scheduler has work of this process (or \p
/// WorkComing): it must neither keep waitIdle() waiting nor this thread
/// polling when there is nothing of ours to pause.
void SchedulerService::Impl::followPeers(bool WorkComing) {
  followPeersPresence();
  if (!PeersBusy && !PeersWork)
    return;
  bool OurWork = WorkComing || Sched.outstanding() > (PeersWork ? 1 : 0);
  bool Yield = OurWork && PeersBusy && PeersBusy();
  if (Yield && !PeersWork) {
    PeersWork = Sched.beginExternal(0);
    BATON_TRACE("peers' LC work: BE yields (external %llu)",
                (unsigned long long)PeersWork);
  } else if (!Yield && PeersWork) {
    BATON_TRACE("peers' LC work over: BE resumes (external %llu)",
                (unsigned long long)PeersWork);
    Sched.endExternal(std::exchange(PeersWork, 0));
  }
}

void SchedulerService::Impl::takeMail() {
  std::vector<Posted> Taken;
  {
    std::lock_guard Lock(MailMutex);
    Taken.swap(Mail);
  }
  // A bracket that has begun and ended since the last pass is over: nothing
  // needs to yield to it, but it was LC work all the same.
  std::set<uint64_t> Over;
  for (const Posted &P : Taken)
    if (P.What == Change::Ends && !Brackets.count(P.Bracket))
      Over.insert(P.Bracket);
  // Begins before ends: one request's end and the next one's begin, taken
  // together, then leave BE work paused instead of resuming it only to
  // pause it again. Every post is applied even if one throws: an end left
  // out would keep BE work paused for good.
  std::exception_ptr First;
  auto Guarded = [&](auto Apply) {
    try {
      Apply();
    } catch (...) {
      if (!First)
        First = std::current_exception();
    }
  };
  bool Began = false;
  auto Now = std::chrono::steady_clock::now();
  for (const Posted &P : Taken) {
    if (P.What == Change::Renewed) {
      // An expired bracket stays expired: its LC work made no progress.
      if (auto It = Brackets.find(P.Bracket); It != Brackets.end())
        It->second.Since = Now;
      continue;
    }
    if (P.What == Change::Ends)
      continue;
    Guarded([&] {
      if (Over.count(P.Bracket)) {
        Sched.noteExternal(P.Sms);
        return;
      }
      uint64_t Id = Sched.beginExternal(P.Sms);
      Brackets.emplace(P.Bracket, TakenBracket{Id, Now});
      Began = true;
      BATON_TRACE("begin external LC %llu (bracket %llu) on %u SMs",
                  (unsigned long long)Id, (unsigned long long)P.Bracket,
                  P.Sms);
    });
  }
  auto End = [&](uint64_t Id) {
    BATON_TRACE("end external LC %llu", (unsigned long long)Id);
    Guarded([&] { Sched.endExternal(Id); });
  };
  // A new bracket holds BE work paused now: lingering ends (see
  // lingerAfterBrackets) have done their job. Otherwise they end once their
  // time is up.
  if (Began || Now >= LingerUntil)
    for (uint64_t Id : std::exchange(Lingering, {}))
      End(Id);
  for (const Posted &P : Taken) {
    auto It = Brackets.find(P.Bracket);
    // The end of an expired bracket finds nothing left to end.
    if (P.What != Change::Ends || It == Brackets.end())
      continue;
    uint64_t Id = It->second.Id;
    Brackets.erase(It);
    if (Linger.count() > 0 && !Began) {
      BATON_TRACE("end external LC %llu lingers", (unsigned long long)Id);
      Lingering.push_back(Id);
      LingerUntil = Now + Linger;
      continue;
    }
    End(Id);
  }
  expireBrackets(Now, Guarded);
  if (First)
    std::rethrow_exception(First);
}

template <typename Guard>
void SchedulerService::Impl::expireBrackets(
    std::chrono::steady_clock::time_point Now, Guard &Guarded) {
  if (Lease.count() <= 0)
    return;
  std::vector<uint64_t> Expired;
  for (auto It = Brackets.begin(); It != Brackets.end();) {
    if (Now - It->second.Since < Lease) {
      ++It;
      continue;
    }
    Expired.push_back(It->second.Id);
    It = Brackets.erase(It);
  }
  for (uint64_t Id : Expired) {
    if (Counts.ExpiredBrackets++ == 0)
      std::fprintf(stderr,
                   "baton: scheduler: a latency-critical bracket stayed open "
                   "for %lld ms (the lease) and no longer holds best-effort "
                   "work back; later expiries are only counted\n",
                   static_cast<long long>(Lease.count() / 1000));
    BATON_TRACE("external LC %llu expired", (unsigned long long)Id);
    Guarded([&] { Sched.endExternal(Id); }); // each one, whatever throws
  }
}

void SchedulerService::Impl::takeMailReporting() {
  try {
    takeMail();
  } catch (const std::exception &E) {
    std::fprintf(stderr, "baton: scheduler: %s\n", E.what());
    Failure = std::current_exception();
  }
}

void SchedulerService::Impl::ring() {
  {
    std::lock_guard Lock(MailMutex);
    Rung = true;
  }
  Bell.notify_one();
}

void SchedulerService::Impl::sleep(
    std::unique_lock<std::mutex> &Lock,
    std::optional<std::chrono::microseconds> For) {
  Lock.unlock();
  {
    std::unique_lock MailLock(MailMutex);
    if (For)
      Bell.wait_for(MailLock, *For, [&] { return Rung; });
    else
      Bell.wait(MailLock, [&] { return Rung; });
    Rung = false;
  }
  Lock.lock();
}

void SchedulerService::Impl::loop() {
  // Linux rounds sleeps up by the thread's timer slack (50 us by default).
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  Exec.serviceThreadStarted();
  std::unique_lock Lock(Mutex);
  while (!Stopping) {
    try {
      takeMail();
      Sched.poll();
      followPeers(/*WorkComing=*/false);
    } catch (const std::exception &E) {
      // Reported at once: a client blocked in a stream synchronisation may
      // never call submit() or waitIdle() again to see it.
      std::fprintf(stderr, "baton: scheduler: %s\n", E.what());
      Failure = std::current_exception();
    }
    notifyRoom();
    if (Failure || Sched.idle())
      Idle.notify_all(); // waitIdle() returns, or reports the failure
    // A failure does not stop the polling: work behind the failed launch,
    // and clients blocked in a stream synchronisation behind it, still
    // depend on this thread.
    // Whatever may end an idle spell (a submit, a bracket, the destructor)
    // rings after making its change, and a ring is kept until this thread
    // takes it: none is lost between the test and the sleep.
    if (Sched.idle()) {
      sleep(Lock);
    } else if (Interval.count() > 0) {
      sleep(Lock, Interval);
    } else {
      // Poll again in a few microseconds: the next BE launch of a queue is
      // resumed only once this thread sees the one before it finish, so
      // every microsecond here is idle GPU. Sleeping (not yielding) with the
      // lock released lets submitters in; the timer slack set above keeps
      // the sleep short.
      Lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(2));
      Lock.lock();
    }
  }
}

void SchedulerService::Impl::rethrowFailure() {
  if (Failure)
    std::rethrow_exception(std::exchange(Failure, nullptr));
}

SchedulerService::SchedulerService(Runtime &R, const SchedulerOptions &Options,
                                   std::chrono::microseconds PollInterval) {
  auto Exec = std::make_unique<RuntimeExecutor>(R);
  Executor &E = *Exec;
  P = std::make_unique<Impl>(std::move(Exec), E, Options, PollInterval);
  P->Thread = std::thread([this] { P->loop(); });
}

SchedulerService::SchedulerService(Executor &Exec,
                                   const SchedulerOptions &Options,
                                   std::chrono::microseconds PollInterval)
    : P(std::make_unique<Impl>(nullptr, Exec, Options, PollInterval)) {
  P->Thread = std::thread([this] { P->loop(); });
}

SchedulerService::~SchedulerService() {
  try {
    waitIdle();
  } catch (...) {
    // Destruction must not throw; the executor's destructor still completes
    // or abandons what is left.
  }
  {
    std::lock_guard Lock(P->Mutex);
    P->Stopping = true;
    P->notifyRoom();
  }
  P->ring();
  P->Thread.join();
}

uint64_t SchedulerService::submit(Work W) {
  bool Lc = W.Class == PriorityClass::LatencyCritical;
  uint64_t Id;
  {
    std::unique_lock Lock(P->Mutex);
    auto MayEnter = [&] {
      return Lc || P->Stopping ||
             (P->Holds == 0 && (!W.IssueAtOnce || P->Sched.queued(W.Queue) <
                                                      MaxQueuedBestEffort));
    };
    if (!MayEnter()) {
      BATON_TRACE("queue %u %s: submit waits", W.Queue,
                  P->Holds ? "held" : "full");
      ++P->RoomWaiters;
      P->Room.wait(Lock, MayEnter);
      --P->RoomWaiters;
    }
    Impl::RoomNotice Notice{*P};
    // A bracket begun before this submit was called must be in effect.
    P->takeMailReporting();
    BATON_TRACE("submit %s '%s', %llu blocks, queue %u",
                Lc ? "LC" : "BE", W.Kernel.Name.c_str(),
                (unsigned long long)W.Kernel.Blocks, W.Queue);
    if (!Lc)
      P->followPeers(/*WorkComing=*/true);
    Id = P->Sched.submit(std::move(W));
    ++(Lc ? P->Counts.LatencyCritical : P->Counts.BestEffort);
  }
  P->ring();
  return Id;
}

uint64_t SchedulerService::beginExternal(uint32_t Sms) {
  uint64_t Bracket;
  {
    std::lock_guard Lock(P->MailMutex);
    Bracket = P->NextBracket++;
    ++P->BracketsBegun;
    P->OpenBrackets.insert(Bracket);
    P->Mail.push_back({Bracket, Sms, Impl::Change::Begins});
    P->Rung = true;
    // Before the service thread can take it, so that its lines come after.
    BATON_TRACE("bracket %llu begins", (unsigned long long)Bracket);
  }
  P->Bell.notify_one();
  return Bracket;
}

void SchedulerService::endExternal(uint64_t Bracket) {
  {
    std::lock_guard Lock(P->MailMutex);
    if (!P->OpenBrackets.erase(Bracket))
      throw std::invalid_argument("baton::sched::SchedulerService: no "
                                  "external LC work " +
                                  std::to_string(Bracket) + " in progress");
    P->Mail.push_back({Bracket, 0, Impl::Change::Ends});
    P->Rung = true;
    BATON_TRACE("bracket %llu ends", (unsigned long long)Bracket);
  }
  P->Bell.notify_one();
}

void SchedulerService::renewExternal(uint64_t Bracket) {
  std::lock_guard Lock(P->MailMutex);
  if (P->OpenBrackets.count(Bracket))
    P->Mail.push_back({Bracket, 0, Impl::Change::Renewed});
}

void SchedulerService::leaseBrackets(std::chrono::microseconds Lease) {
  std::lock_guard Lock(P->Mutex);
  P->Lease = Lease;
}

void SchedulerService::lingerAfterBrackets(std::chrono::microseconds Linger) {
  std::lock_guard Lock(P->Mutex);
  P->Linger = Linger;
}

void SchedulerService::yieldWhile(std::function<bool()> Busy) {
  {
    std::lock_guard Lock(P->Mutex);
    Impl::RoomNotice Notice{*P};
    P->PeersBusy = std::move(Busy);
    P->followPeers(/*WorkComing=*/false);
  }
  P->ring();
}

void SchedulerService::peersPresentWhile(std::function<bool()> Present) {
  std::lock_guard Lock(P->Mutex);
  P->PeersPresent = std::move(Present);
  P->Sched.setPeersPresent(false);
  P->followPeersPresence();
}

void SchedulerService::waitIdle() {
  std::unique_lock Lock(P->Mutex);
  {
    // An open bracket is work in progress, as it was when begun on the
    // caller's thread; its end is taken by the service thread.
    Impl::RoomNotice Notice{*P};
    P->takeMailReporting();
  }
  P->Idle.wait(Lock, [&] { return P->Sched.idle() || P->Failure; });
  // A failure deferred by a client's call (a hold's drain) and not polled
  // yet: the scheduler may be idle with it still pending.
  if (std::exception_ptr Deferred = P->Sched.takeDeferredFailure();
      Deferred && !P->Failure) {
    try {
      std::rethrow_exception(Deferred);
    } catch (const std::exception &E) {
      std::fprintf(stderr, "baton: scheduler: %s\n", E.what());
    }
    P->Failure = Deferred;
  }
  P->rethrowFailure();
}

SchedulerService::BestEffortHold
SchedulerService::holdBestEffort(std::chrono::microseconds Patience) {
  auto Drained = [&] { return P->Stopping || P->Sched.bestEffortIdle(); };
  std::unique_lock Lock(P->Mutex);
  {
    // BE work paused by a bracket begun before this call resumes only once
    // that bracket's end is taken.
    Impl::RoomNotice Notice{*P};
    P->takeMailReporting();
  }
  // Nothing below throws (the drain defers the scheduler's failures to the
  // service thread's poll): the counts need no undoing on the way out.
  ++P->Holds;
  ++P->RoomWaiters;
  if (!P->Room.wait_for(Lock, Patience, Drained)) {
    BATON_TRACE("best-effort work still outstanding: draining it");
    ++P->Counts.Drains;
    if (P->Draining++ == 0)
      P->Sched.drainBestEffort(true);
    P->Room.wait(Lock, Drained);
    if (--P->Draining == 0)
      P->Sched.drainBestEffort(false);
  }
  --P->RoomWaiters;
  BATON_TRACE("best-effort work held, none outstanding");
  return BestEffortHold(*this);
}

SchedulerService::BestEffortHold::~BestEffortHold() {
  if (!Service)
    return;
  Impl &I = *Service->P;
  std::lock_guard Lock(I.Mutex);
  if (--I.Holds == 0)
    I.Room.notify_all();
}

WorkInfo SchedulerService::info(uint64_t Id) const {
  std::lock_guard Lock(P->Mutex);
  return P->Sched.info(Id);
}

ServiceStats SchedulerService::stats() const {
  ServiceStats S;
  {
    std::lock_guard Lock(P->Mutex);
    S = P->Counts;
    S.Resumes = P->Sched.resumes();
    S.Pauses = P->Sched.pauses();
    S.Originals = P->Sched.originals();
    S.SloMisses = P->Sched.sloMisses();
  }
  std::lock_guard Lock(P->MailMutex);
  S.LatencyCritical += P->BracketsBegun;
  return S;
}
