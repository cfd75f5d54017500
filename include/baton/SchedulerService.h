//===- baton/SchedulerService.h - The scheduler on a thread of its own -*- C++ -*-===//
//
// Scheduler makes every decision inside submit() and poll() and is not
// thread-safe. A SchedulerService owns a Scheduler over a RuntimeExecutor
// (or over an executor its caller owns) and a thread that polls it, so
// that any thread of a program (the launch shim behind `<<<...>>>`, a
// language binding) may submit work:
//
//  * submit() acts at once: an LC launch is issued, and BE work asked to
//    yield, before it returns; it never waits for BE work to stop.
//  * the service thread carries out what completions lead to: BE work
//    resumed (or grown) when LC work ends, the next launch of a BE queue
//    started when the one before it completes.
//  * beginExternal() and endExternal() only post the change to the service
//    thread, which applies it at the start of its next pass (submit() and
//    waitIdle() apply what is posted first, too). They are on the critical
//    path of a request and never wait for the lock: it may be held through
//    a submit's driver calls or a poll, and the pauses and resumes that a
//    bracket leads to are driver calls of their own (a bert request at 10%
//    load beside training on an H100 spent 32 us in each of begin and end
//    when they were made on the caller's thread, docs/benchmarks.md).
//
// Errors from the executor (a failed launch) are printed when they happen
// and rethrown by the next waitIdle(); the failed work is given up and
// everything else goes on. submit() throws only for the work it was given.
//
// A best-effort queue holds at most MaxQueuedBestEffort IssueAtOnce
// launches not yet done: submit() of one more waits (without the lock)
// until one leaves the queue, as a CUDA launch waits when its stream's queue
// is full. IssueAtOnce launches put commands on the client's stream at once
// (a paused one an event record and a wait on the device), and the driver
// blocks a call that finds the stream's queue full. A submit() blocked in
// the driver that way, holding the lock, would keep the service thread from
// resuming the very launch the stream waits for. So a thread that holds LC
// work open must not submit IssueAtOnce work to a full queue: it would wait
// for itself.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SCHEDULERSERVICE_H
#define BATON_SCHEDULERSERVICE_H

#include "baton/SchedulerRuntime.h"

#include <chrono>
#include <functional>
#include <memory>
#include <utility>

namespace baton::sched {

struct ServiceStats {
  uint64_t LatencyCritical = 0; ///< LC work submitted
  uint64_t BestEffort = 0;      ///< BE work submitted
  /// BE (re)launches after the first: each follows a pause (time sharing, a
  /// change of width, or a start behind the queue's head).
  uint64_t Resumes = 0;
  /// Requests to pause running BE work (time or space sharing).
  uint64_t Pauses = 0;
  /// BE launches run as the original kernel (Scheduler::originals()).
  uint64_t Originals = 0;
  uint64_t SloMisses = 0;
  /// Holds (holdBestEffort) that drained BE work LC work kept paused past
  /// their patience.
  uint64_t Drains = 0;
  /// Brackets that outlived the lease (leaseBrackets()).
  uint64_t ExpiredBrackets = 0;
};

class SchedulerService {
public:
  /// IssueAtOnce launches one best-effort queue may have outstanding before
  /// submit() waits (see above). A paused one queues two commands on its
  /// stream, one of the few running behind the queue's head up to five:
  /// about 600 at most, well below the depth at which the driver was seen
  /// to block (about 1,000 paused launches, some 2,000 commands, on an
  /// H200; the depth is not documented).
  static constexpr size_t MaxQueuedBestEffort = 256;

  /// \p PollInterval bounds how long a completion waits to be acted on;
  /// 0 (the default) polls every few microseconds while work is
  /// outstanding, which keeps the gap between two launches of a best-effort
  /// queue close to the driver's own latency at the cost of a busy thread.
  explicit SchedulerService(
      Runtime &R, const SchedulerOptions &Options = {},
      std::chrono::microseconds PollInterval = std::chrono::microseconds(0));
  /// The same over any executor (a test's stand-in for the device), which
  /// must outlive the service.
  explicit SchedulerService(
      Executor &Exec, const SchedulerOptions &Options = {},
      std::chrono::microseconds PollInterval = std::chrono::microseconds(0));
  /// Waits for all submitted work, then stops the service thread.
  ~SchedulerService();
  SchedulerService(const SchedulerService &) = delete;
  SchedulerService &operator=(const SchedulerService &) = delete;

  /// Thread-safe. Returns the work's id. IssueAtOnce BE work waits first
  /// while its queue holds MaxQueuedBestEffort launches.
  uint64_t submit(Work W);
  /// Bracket LC work the client launches itself, as Scheduler's
  /// beginExternal / endExternal do, thread-safe. Both return at once (see
  /// above): BE work yields within a pass of the service thread, and BE
  /// work submitted after beginExternal() returned is planned with the LC
  /// work in effect. The id is the bracket's own, for endExternal() only;
  /// ending one that is not open throws std::invalid_argument. A bracket
  /// begun and ended within one pass makes nothing yield.
  uint64_t beginExternal(uint32_t Sms = 0);
  void endExternal(uint64_t Id);
  /// The end of a bracket takes effect \p Linger after it is taken, unless
  /// another bracket begins first: one request's end and the next one's
  /// begin, close together (requests back to back at high load), then
  /// leave BE work paused instead of resuming it only to pause it again,
  /// at the cost of that much idle GPU after a request that no other
  /// follows. 0 (the default): ends take effect at once. For ends taken
  /// from now on.
  void lingerAfterBrackets(std::chrono::microseconds Linger);
  /// A bracket open longer than \p Lease (since its begin was taken, or
  /// its last renewExternal()) no longer makes BE work yield: its end is
  /// taken then, and the client's endExternal() later finds nothing left
  /// to end. LC work that waits for the whole device inside a bracket (a
  /// device synchronisation, a stream created, a compile's benchmarking)
  /// would otherwise wait for BE work that waits for the bracket. The
  /// first expiry is reported on stderr; stats() counts them all. As the
  /// GPU's registry does for other processes' LC work (share.h). 0 (the
  /// default): no lease. For brackets taken from now on and open now.
  void leaseBrackets(std::chrono::microseconds Lease);
  /// Renews an open bracket's lease, as LC work that is making progress
  /// (a client that sees its queued LC work advance); posted like an end.
  /// A bracket that is not open, or has expired, is left as it is.
  void renewExternal(uint64_t Id);
  /// LC work that this process does not see: that of other processes
  /// sharing the GPU (baton/share.h). While \p Busy returns true and the
  /// service has other work, BE work yields to it as to beginExternal(0)
  /// (time sharing). \p Busy is called with the service's lock held, by
  /// submit() of BE work and on every poll of the service thread, which
  /// polls only while work is outstanding: it must be cheap (a few atomic
  /// reads) and must not call the service. Replaces an earlier one; an empty
  /// function removes it.
  void yieldWhile(std::function<bool()> Busy);
  /// Whether other processes that may run LC work share the GPU, busy or
  /// not (Scheduler::setPeersPresent). While the scheduler's
  /// OriginalsWhenIdleWithBlocksUpTo is on, \p Present is called with the
  /// service's lock held, by this call, by submit() of BE work and on
  /// every poll of the service thread: it must be as cheap as yieldWhile's
  /// probe and must not call the service. Replaces an earlier one; an
  /// empty function removes it (no peers).
  void peersPresentWhile(std::function<bool()> Present);
  /// Returns once every piece of work submitted so far is done.
  void waitIdle();

  /// Best-effort work held back, with none of it left on the device: see
  /// holdBestEffort(). Releases the hold when destroyed.
  class BestEffortHold {
  public:
    BestEffortHold(BestEffortHold &&Other) noexcept
        : Service(std::exchange(Other.Service, nullptr)) {}
    BestEffortHold(const BestEffortHold &) = delete;
    BestEffortHold &operator=(const BestEffortHold &) = delete;
    BestEffortHold &operator=(BestEffortHold &&) = delete;
    ~BestEffortHold();

  private:
    friend class SchedulerService;
    explicit BestEffortHold(SchedulerService &S) : Service(&S) {}
    SchedulerService *Service;
  };
  /// Holds best-effort work back and returns once none of it is left:
  /// from then until the hold is destroyed, submit() of BE work waits
  /// (without the lock), and no stream of this service waits on the device
  /// for a word that only the host can release. Loading a module needs
  /// that state: cuModuleLoadData waits for a stream blocked in such a
  /// wait, and the resume that would release it, queued after the load
  /// began, waits for the load, so neither returns (docs/scheduling.md,
  /// "Deadlocks avoided"). BE work left paused by LC work is waited for
  /// until the LC work ends, for \p Patience at most; after that the
  /// scheduler drains it (Scheduler::drainBestEffort: it stops yielding to
  /// LC work until none is left), so the hold always comes, even to a
  /// thread whose own bracket keeps the work paused, at the cost of LC
  /// work sharing the device meanwhile. LC work and brackets go on
  /// throughout. Holds may overlap. A thread that holds one must not submit
  /// BE work: it would wait for itself.
  [[nodiscard]] BestEffortHold holdBestEffort(std::chrono::microseconds Patience);
  WorkInfo info(uint64_t Id) const;
  ServiceStats stats() const;

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace baton::sched

#endif // BATON_SCHEDULERSERVICE_H
