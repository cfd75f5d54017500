//===- baton/Scheduler.h - Priority scheduling of kernel launches -*- C++ -*-===//
//
// One process, one device. Clients submit work tagged LatencyCritical (LC) or
// BestEffort (BE). LC work goes to the device at once, as the original kernel
// on a high-priority stream. BE work runs as a PTB launch (or as slices when
// the kernel has no PTB variant; or, while no LC work is about, as the
// original when PTB would be one wave of one block per worker, see
// OriginalForOneWaveWhenQuiet, or when its blocks are short and the device
// has been idle a while, see OriginalsWhenIdleWithBlocksUpTo) and yields to
// LC work in one of two ways, chosen per LC kernel:
//
//  * time sharing: every BE launch is paused while the LC kernel runs, and
//    resumed when no time-sharing LC work is left;
//  * space sharing: BE launches leave whole SMs free for the LC kernel. Where
//    the device can vacate SMs (DeviceFacts::CanVacate), the workers on the
//    SMs the LC kernel needs leave and the others go on, with no pause; a
//    launch is grown back afterwards (paused and resumed at full width)
//    only if it is long enough to be worth a relaunch. Otherwise BE launches
//    are paused and resumed with fewer workers, and grown again afterwards.
//
// Space sharing without vacating costs BE one more pause/relaunch cycle than
// time sharing and gains the SMs the LC kernel does not need for its
// duration, so an LC kernel shares SMs only when its one-wave SM demand
// leaves SMs over and
//   (free SMs / all SMs) x expected LC duration > relaunch + BE drain time.
// Durations start from SchedulerOptions::DefaultBlockDuration (no profiling
// run) and follow an exponential moving average of what completions measure,
// kept per kernel and per occupancy (the blocks or workers a launch was
// sized to put on each SM it runs on): blocks often take longer beside more
// of their kind, and each width is judged by the block time measured at its
// own occupancy.
//
// BE width: a PTB launch whose SMs hold few workers (DeviceFacts' prompt
// limits) yields within about signal latency + one block; on a fuller SM
// the drain can take longer (DeviceFacts::CrowdedExtraDrain). The launch
// gets every co-resident worker when even that fits the preemption bound
// (the option, tightened by the SLO slack of LC kernels seen so far), else
// the prompt number per SM when one block fits: the device's limits, or
// more where the kernel's own pauses there drained as at those limits
// (PromptFromPauses; a launch may try one worker per SM more than the most
// that did, up to DeviceFacts::PromptClimbTimesLimits times the device's
// limits, and longer drains stop that climb). When no width fits, it
// leaves enough SMs idle for the largest LC kernel seen, so that LC work
// starts without waiting, and runs prompt SMs on the rest
// (SchedulerOptions::ReserveWhileLcAbout does so for every launch while LC
// work is about); if that kernel needs every SM, no SM is worth keeping
// idle, and it runs prompt SMs on all of them. Only vacated SMs are
// really idle: fewer workers alone
// are spread over every SM by the hardware. Slices are sized
// to whole waves, as many as keep SliceWindow slices within the bound.
//
// Stream semantics: the BE work of one queue runs in submission order; a
// later launch starts only when the one before it has completed, however
// often that one was paused. LC work has no order among itself. Work marked
// IssueAtOnce that cannot run yet is still handed to the executor at once,
// paused (LaunchRequest::StartPaused), so that a client stream it shares
// with other work sees it in submission order; it is resumed when it may
// run. While a queue's head runs unhindered, the launches behind it (up to
// SchedulerOptions::LaunchesAhead) run behind it at once, each behind the
// one ahead of it, so that each starts on the device when the one before
// completes, without a host round trip in between: IssueAtOnce work that
// arrives within that window is issued running (LaunchRequest::After), and
// work already issued paused is resumed (Executor::resume's After). They
// yield to LC work like the head. While no LC work has been seen for a
// while, more launches follow the head (LaunchesAheadWhenQuiet).
//
// The scheduler has no thread of its own: submit() and poll() make every
// decision, and the owner calls poll() whenever the executor may have
// something to report (a loop on a real device, each event in simulation).
// It is not thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SCHEDULER_H
#define BATON_SCHEDULER_H

#include "baton/SchedulerExecutor.h"

#include <any>
#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace baton::sched {

enum class PriorityClass { LatencyCritical, BestEffort };

struct Work {
  KernelShape Kernel;
  PriorityClass Class = PriorityClass::BestEffort;
  /// Best-effort stream; work of one queue runs in submission order.
  uint32_t Queue = 0;
  /// LC only: the latency the client needs, from submission to completion.
  std::optional<std::chrono::microseconds> Slo;
  /// Handed to the executor untouched (see SchedulerRuntime.h, SchedulerSim.h).
  std::any Payload;
  /// BE only: issue the launch at once even when it has to wait (see above).
  /// For work on a client's stream, where later work the scheduler never
  /// sees (copies, synchronisation) must find it already issued. A kernel
  /// without variants cannot wait paused: it is issued to run, and its
  /// stream orders it, even while LC work runs.
  bool IssueAtOnce = false;
};

struct SchedulerOptions {
  /// Longest time an LC kernel should wait for BE work to get out of its way.
  Nanos PreemptionBound = std::chrono::microseconds(100);
  /// Per-block duration assumed for a kernel not measured yet.
  Nanos DefaultBlockDuration = std::chrono::microseconds(10);
  /// Weight of a new measurement in the moving average, in (0, 1].
  double EmaWeight = 0.25;
  /// SMs kept free for LC work by BE launches whose blocks are too long for
  /// the bound, before any LC kernel has been seen.
  uint32_t MinReservedSms = 8;
  /// Drop each piece of work once it is Done, so that a long-running client
  /// (the launch shim sees every launch of a training job) keeps memory
  /// bounded; info() then throws for it.
  bool ForgetDoneWork = false;
  /// Launches of a BE queue resumed behind its running head (see above).
  /// Each one ahead hides the host's reaction time behind one more short
  /// kernel, and costs a pause and a host round trip whenever LC work
  /// arrives, since it has to start, see the flag and leave before it can
  /// be resumed. On the H200 colocation benchmark one ahead took training
  /// alone from 0.86x to 0.92x of exclusive; three ahead kept less training
  /// next to inference (0.31 of exclusive at 50% load, against 0.49-0.53)
  /// and raised inference p99 (docs/benchmarks.md).
  uint32_t LaunchesAhead = 1;
  /// LaunchesAhead while the device is quiet: no LC work (this process's,
  /// external, or peers' through beginExternal) for QuietAfter. The pause
  /// that deeper queueing costs is then paid once, by the first LC work
  /// after a quiet spell, and the narrower window holds until the next
  /// one. 0 (or no more than LaunchesAhead) keeps LaunchesAhead always.
  /// The window is looked at when the scheduler acts (a submission, a
  /// completion), not on a timer.
  uint32_t LaunchesAheadWhenQuiet = 0;
  Nanos QuietAfter = std::chrono::milliseconds(100);
  /// While the device is quiet (as above), BE launches take every
  /// co-resident worker whatever the bound: a job alone keeps its
  /// throughput, and only the first LC work after a quiet spell may wait
  /// for a crowded SM's longer drain; BE work is resumed at the bound's
  /// width after it.
  bool FullWidthWhenQuiet = true;
  /// While the device is quiet, a BE launch issued to run at once whose
  /// PTB workers would each hold one block of a single wave runs as the
  /// original kernel. Such a PTB launch can be stopped only before it
  /// starts, and its workers take blocks in the order their claims reach
  /// the cursor, not the order in which the hardware placed them: on the
  /// H200 that cost L2-bound matmul tiles of Inductor's training step 20%
  /// (docs/benchmarks.md), and the original runs them in the hardware's
  /// order. A launch issued paused, behind the window of launches that
  /// follow a running head, stays PTB, so the first LC work after a quiet
  /// spell waits for at most the head and that window, as with
  /// FullWidthWhenQuiet.
  bool OriginalForOneWaveWhenQuiet = true;
  /// While the device is quiet, a BE launch issued to run at once (or
  /// resumed having run nothing) runs as the original kernel if the BE
  /// originals then on the device, it included, are expected to take no
  /// longer than this in all (their whole-device durations summed). A job
  /// whose LC peer is idle then pays no variant's cost for its shorter
  /// kernels, and the first LC work after a quiet spell waits for about
  /// this long at most for them, besides the one-wave originals above.
  /// 0: off.
  Nanos OriginalsWhenQuietUpTo{0};
  /// While the device is idle (no LC work for IdleAfter, or none ever,
  /// and no LC peer present: setPeersPresent), a BE launch issued to run
  /// at once (or resumed having run nothing) runs as the original kernel,
  /// whatever its whole duration, if its blocks were measured to take at
  /// most this long at the original's occupancy. An LC kernel of this
  /// process, on a higher-priority stream, is given each SM slot such a
  /// launch frees, so it waits for SMs about one block, as for a PTB
  /// worker's claim; but the originals do not leave for the rest of the LC
  /// work, whose kernels share SMs with them until they end, so the first
  /// LC work after an idle spell runs slower. A kernel not yet measured
  /// runs as PTB, and so does one whose blocks were measured only at other
  /// occupancies. IssueAtOnce work that is such an original is issued
  /// running even beyond the LaunchesAhead windows (its stream orders it;
  /// paused and resumed it would wait for two waits across streams on the
  /// device), as long as the originals issued in a row at its queue's end,
  /// back to the last launch that can pause, are expected to take no
  /// longer than the preemption bound. 0: off.
  Nanos OriginalsWhenIdleWithBlocksUpTo{0};
  /// While the device is quiet, a BE launch of a kernel whose blocks were
  /// measured at the occupancy it runs at is timed (LaunchRequest::
  /// TimeRuns) once in this many launches of that kernel; the others run
  /// without the timing's cost, and their completions leave the estimates
  /// as they are. While LC work is about every launch is timed, since the
  /// widths then follow the estimates closely. The choice is made when a
  /// launch is issued and holds for all its runs: one issued untimed while
  /// quiet stays untimed if LC work then pauses and resumes it. 1 (or 0):
  /// every launch.
  uint32_t QuietTimingInterval = 8;
  /// Let each kernel's own pauses raise the workers per SM a launch may be
  /// held to as prompt, past the device's limits, while their drains stay
  /// those of the device's limits, up to DeviceFacts::PromptClimbTimesLimits
  /// times those limits (PromptModel in SchedulerPolicy.h; see the BE width
  /// above).
  bool PromptFromPauses = true;
  /// How long no LC work must have been seen for the device to be idle.
  /// Less than QuietAfter acts as QuietAfter: an idle device is quiet.
  Nanos IdleAfter = std::chrono::seconds(1);
  /// Work a PTB worker should get per claim on its launch's cursor. Kernels
  /// of shorter blocks claim several at once (claim_chunk, up to
  /// BATON_MAX_CLAIM_CHUNK, fewer near the end of the grid), so that their
  /// workers do not all wait on one contended atomic once per block; a
  /// pause may then wait for up to one claim per worker, and the bound
  /// caps the claim. 0: one block per claim.
  Nanos ClaimInterval = std::chrono::microseconds(20);
  /// A PTB launch's first shares may hold more blocks than a claim where
  /// shares of that many cover the grid, as many as keep the bound for
  /// LC work arriving as the workers start (LaunchRequest::
  /// CoveringShareLimit): no worker then claims at all, where the burst of
  /// claims that find the grid exhausted is most of what a PTB launch of
  /// short blocks costs (bench/ptb_anatomy), and a pause of such a run
  /// waits for up to a share a worker. Such shares are sized only on
  /// blocks measured at the occupancy the launch runs at: a kernel's first
  /// launch gets shares of a claim. On the H100 it took
  /// triton_poi_fused__to_copy_9 (2,304 blocks over 2,112 workers) from
  /// 1.78x its original to 1.30x, with colocation's p99 and kept unchanged
  /// (docs/benchmarks.md, forty-ninth session).
  bool CoveringFirstShares = true;
  /// While LC work is about (the device is not quiet), every BE launch
  /// leaves the SMs of the largest LC work seen (at least MinReservedSms)
  /// to it, whatever its block duration, where the device can vacate SMs:
  /// LC work that fits there starts without waiting for any drain, and BE
  /// work runs on the rest between LC requests too, with every co-resident
  /// PTB worker whatever the bound (LC work larger than the reserve waits
  /// for that fuller drain).
  bool ReserveWhileLcAbout = false;
};

enum class Sharing { Time, Space };

enum class WorkState { Queued, Running, Pausing, Paused, Done };

/// What the scheduler did with one piece of work, for callers and tests.
struct WorkInfo {
  PriorityClass Class = PriorityClass::BestEffort;
  WorkState State = WorkState::Queued;
  Form LaunchForm = Form::Original;
  uint32_t Width = 0;       ///< current (or last) width
  uint32_t VacatedSms = 0;  ///< Ptb: low SMs its workers leave to LC work
  Sharing HowShared = Sharing::Time; ///< LC only: how BE work yielded to it
  uint32_t Launches = 0;    ///< launch plus resumes
  Nanos SubmittedAt{0};
  std::optional<Nanos> DoneAt;
};

class Scheduler {
public:
  Scheduler(Executor &Exec, const SchedulerOptions &Options = {});
  ~Scheduler();
  Scheduler(const Scheduler &) = delete;
  Scheduler &operator=(const Scheduler &) = delete;

  /// Accepts \p W and acts on it at once. Returns its id (from 1). Throws
  /// only if acting on \p W failed (it is then given up); a failure of other
  /// work met on the way is rethrown by the next poll().
  uint64_t submit(Work W);
  /// Takes the executor's completions and re-plans. If the executor fails
  /// to launch, pause or resume a piece of work, that work is given up (it
  /// becomes Done, and the work behind it goes on) and the error rethrown.
  void poll();
  /// LC work that the client runs itself (kernels of a library the
  /// scheduler does not launch: cuBLAS, PyTorch): BE work yields to it, as
  /// to an LC kernel, from now until endExternal(). \p Sms is how many SMs
  /// it needs; 0 or all of them means time sharing (BE work pauses), fewer
  /// means space sharing (BE work shrinks to the rest). Returns its id.
  /// Executor failures met while BE work yields or resumes are rethrown by
  /// the next poll(), here and in endExternal().
  uint64_t beginExternal(uint32_t Sms = 0);
  void endExternal(uint64_t Id);
  /// External LC work that began and ended before the client could tell
  /// (SchedulerService takes both ends of a short bracket at once): it
  /// pauses nothing, but counts as LC work seen now, as if bracketed, for
  /// the quiet spell (QuietAfter) and the SMs LC work needs.
  void noteExternal(uint32_t Sms = 0);
  /// Whether other processes that may run LC work share the device (see
  /// SchedulerService::peersPresentWhile), outstanding work or not. Their
  /// kernels get no priority over this process's (contexts time-slice), so
  /// while they are present the device is never idle for
  /// OriginalsWhenIdleWithBlocksUpTo. False until set.
  void setPeersPresent(bool Present);
  /// True when every submitted piece of work is Done.
  bool idle() const;
  /// Pieces of work not yet Done, external LC work included.
  uint64_t outstanding() const;
  /// BE work of queue \p Queue not yet Done.
  size_t queued(uint32_t Queue) const;
  /// True when no BE work of any queue is left (LC work may be).
  bool bestEffortIdle() const;
  /// While on, BE work does not yield to LC work: paused launches are
  /// resumed, running ones go on, and queued ones (kernels
  /// without variants too) start, so that the BE queues empty however long
  /// LC work lasts. SchedulerService turns it on for a module load that
  /// would otherwise wait for LC work without end. Off (the default) makes
  /// BE work yield again. Failures are rethrown by the next poll().
  void drainBestEffort(bool On);
  /// The failure met outside poll() (acting on a submission, a bracket or
  /// a drain) that the next poll() would rethrow, taken instead: null if
  /// there is none.
  std::exception_ptr takeDeferredFailure();

  const SchedulerOptions &options() const;
  WorkInfo info(uint64_t Id) const;
  /// Current per-block duration estimate of kernel \p Name, at the
  /// occupancy it was last measured at.
  Nanos blockDuration(const std::string &Name) const;
  /// LC work that completed later than its SLO.
  uint64_t sloMisses() const;
  /// BE (re)launches that followed a pause (time sharing, a change of
  /// width, or a start behind the queue's head), so far.
  uint64_t resumes() const;
  /// Requests to pause a running BE launch, so far.
  uint64_t pauses() const;
  /// Changes of a running or paused launch's vacated SMs, so far.
  uint64_t vacates() const;
  /// BE launches issued (or resumed) as the original kernel, so far: those
  /// of kernels without variants, and those a quiet or idle rule above
  /// chose it for.
  uint64_t originals() const;

private:
  struct State;
  std::unique_ptr<State> S;
};

} // namespace baton::sched

#endif // BATON_SCHEDULER_H
