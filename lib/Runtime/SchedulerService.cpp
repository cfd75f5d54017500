//===- SchedulerService.cpp - The scheduler on a thread of its own --------===//
//
// One mutex guards the scheduler and its executor; submitters and the
// service thread take turns. The thread polls the executor while work is
// outstanding (continuously, or every PollInterval) and sleeps while the
// scheduler is idle.
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
#include <thread>
#include <utility>

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

  mutable std::mutex Mutex; ///< guards everything below and Sched
  std::condition_variable Wake;
  std::condition_variable Idle;
  std::condition_variable Room; ///< BE work left a queue: it may have room
  size_t RoomWaiters = 0;       ///< submitters waiting on Room
  bool Stopping = false;
  std::exception_ptr Failure;
  ServiceStats Counts;
  std::function<bool()> PeersBusy; ///< see yieldWhile()
  uint64_t PeersWork = 0; ///< external work standing for peers, 0 if none
  std::thread Thread;
};

/// Begins or ends the external work that stands for peers' LC work. It is
/// held only while the scheduler has work of this process (or \p
/// WorkComing): it must neither keep waitIdle() waiting nor this thread
/// polling when there is nothing of ours to pause.
void SchedulerService::Impl::followPeers(bool WorkComing) {
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

void SchedulerService::Impl::loop() {
  // Linux rounds sleeps up by the thread's timer slack (50 us by default).
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  std::unique_lock Lock(Mutex);
  while (!Stopping) {
    try {
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
    if (Sched.idle()) {
      Wake.wait(Lock, [&] { return Stopping || !Sched.idle(); });
    } else if (Interval.count() > 0) {
      Wake.wait_for(Lock, Interval);
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
  P->Wake.notify_all();
  P->Thread.join();
}

uint64_t SchedulerService::submit(Work W) {
  bool Lc = W.Class == PriorityClass::LatencyCritical;
  uint64_t Id;
  {
    std::unique_lock Lock(P->Mutex);
    if (!Lc && W.IssueAtOnce &&
        P->Sched.queued(W.Queue) >= MaxQueuedBestEffort) {
      BATON_TRACE("queue %u full: submit waits", W.Queue);
      ++P->RoomWaiters;
      P->Room.wait(Lock, [&] {
        return P->Stopping ||
               P->Sched.queued(W.Queue) < MaxQueuedBestEffort;
      });
      --P->RoomWaiters;
    }
    Impl::RoomNotice Notice{*P};
    BATON_TRACE("submit %s '%s', %llu blocks, queue %u",
                Lc ? "LC" : "BE", W.Kernel.Name.c_str(),
                (unsigned long long)W.Kernel.Blocks, W.Queue);
    if (!Lc)
      P->followPeers(/*WorkComing=*/true);
    Id = P->Sched.submit(std::move(W));
    ++(Lc ? P->Counts.LatencyCritical : P->Counts.BestEffort);
  }
  P->Wake.notify_all();
  return Id;
}

uint64_t SchedulerService::beginExternal(uint32_t Sms) {
  uint64_t Id;
  {
    std::lock_guard Lock(P->Mutex);
    Impl::RoomNotice Notice{*P};
    Id = P->Sched.beginExternal(Sms);
    ++P->Counts.LatencyCritical;
    BATON_TRACE("begin external LC %llu on %u SMs", (unsigned long long)Id,
                Sms);
  }
  P->Wake.notify_all();
  return Id;
}

void SchedulerService::endExternal(uint64_t Id) {
  {
    std::lock_guard Lock(P->Mutex);
    BATON_TRACE("end external LC %llu", (unsigned long long)Id);
    Impl::RoomNotice Notice{*P};
    P->Sched.endExternal(Id);
  }
  P->Wake.notify_all();
}

void SchedulerService::yieldWhile(std::function<bool()> Busy) {
  {
    std::lock_guard Lock(P->Mutex);
    Impl::RoomNotice Notice{*P};
    P->PeersBusy = std::move(Busy);
    P->followPeers(/*WorkComing=*/false);
  }
  P->Wake.notify_all();
}

void SchedulerService::waitIdle() {
  std::unique_lock Lock(P->Mutex);
  P->Idle.wait(Lock, [&] { return P->Sched.idle() || P->Failure; });
  P->rethrowFailure();
}

WorkInfo SchedulerService::info(uint64_t Id) const {
  std::lock_guard Lock(P->Mutex);
  return P->Sched.info(Id);
}

ServiceStats SchedulerService::stats() const {
  std::lock_guard Lock(P->Mutex);
  ServiceStats S = P->Counts;
  S.Resumes = P->Sched.resumes();
  S.Pauses = P->Sched.pauses();
  S.SloMisses = P->Sched.sloMisses();
  return S;
}
