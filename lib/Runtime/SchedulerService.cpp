//===- SchedulerService.cpp - The scheduler on a thread of its own --------===//
//
// One mutex guards the scheduler and its executor; submitters and the
// service thread take turns. The thread polls every PollInterval while work
// is outstanding (completions arrive on the executor's waiter threads, which
// it does not signal) and sleeps while the scheduler is idle.
//
//===----------------------------------------------------------------------===//

#include "baton/SchedulerService.h"

#include "Trace.h"

#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

using namespace baton;
using namespace baton::sched;

struct SchedulerService::Impl {
  Impl(Runtime &R, const SchedulerOptions &Options,
       std::chrono::microseconds Interval)
      : Exec(R), Sched(Exec, Options), Interval(Interval) {}

  void loop();
  void rethrowFailure();

  RuntimeExecutor Exec;
  Scheduler Sched;
  std::chrono::microseconds Interval;

  mutable std::mutex Mutex; ///< guards everything below and Sched
  std::condition_variable Wake;
  std::condition_variable Idle;
  bool Stopping = false;
  std::exception_ptr Failure;
  std::vector<uint64_t> Ids;
  ServiceStats Counts;
  std::thread Thread;
};

void SchedulerService::Impl::loop() {
  std::unique_lock Lock(Mutex);
  while (!Stopping) {
    try {
      Sched.poll();
    } catch (const std::exception &E) {
      // Reported at once: a client blocked in a stream synchronisation may
      // never call submit() or waitIdle() again to see it.
      std::fprintf(stderr, "baton: scheduler: %s\n", E.what());
      Failure = std::current_exception();
    }
    if (Sched.idle() || Failure) {
      Idle.notify_all();
      Wake.wait(Lock, [&] { return Stopping || (!Sched.idle() && !Failure); });
    } else {
      Wake.wait_for(Lock, Interval);
    }
  }
}

void SchedulerService::Impl::rethrowFailure() {
  if (Failure)
    std::rethrow_exception(std::exchange(Failure, nullptr));
}

SchedulerService::SchedulerService(Runtime &R, const SchedulerOptions &Options,
                                   std::chrono::microseconds PollInterval)
    : P(std::make_unique<Impl>(R, Options, PollInterval)) {
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
  }
  P->Wake.notify_all();
  P->Thread.join();
}

uint64_t SchedulerService::submit(Work W) {
  bool Lc = W.Class == PriorityClass::LatencyCritical;
  uint64_t Id;
  {
    std::lock_guard Lock(P->Mutex);
    P->rethrowFailure();
    BATON_TRACE("submit %s '%s', %llu blocks, queue %u",
                Lc ? "LC" : "BE", W.Kernel.Name.c_str(),
                (unsigned long long)W.Kernel.Blocks, W.Queue);
    Id = P->Sched.submit(std::move(W));
    P->Ids.push_back(Id);
    ++(Lc ? P->Counts.LatencyCritical : P->Counts.BestEffort);
  }
  P->Wake.notify_all();
  return Id;
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
  for (uint64_t Id : P->Ids) {
    WorkInfo I = P->Sched.info(Id);
    if (I.Class == PriorityClass::BestEffort && I.Launches > 1)
      S.Resumes += I.Launches - 1;
  }
  S.SloMisses = P->Sched.sloMisses();
  return S;
}
