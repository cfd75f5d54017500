//===- baton/SchedulerExecutor.h - What the scheduler drives -----*- C++ -*-===//
//
// The scheduler decides; an Executor carries the decisions out on a device.
// Keeping the two apart lets the same scheduler run over the real runtime
// (SchedulerRuntime.h) and over a deterministic simulation (SchedulerSim.h)
// that unit tests drive without a GPU.
//
// Contract of an Executor:
//  * launch() starts a launch at once; pause/resume refer to it by the id the
//    scheduler gave it. Ids are never reused.
//  * requestPause() asks a running Slices or Ptb launch to stop at its next
//    checkpoint. It may return before the launch has stopped; the launch
//    then reports Paused (work left) or Done (it finished first) via poll().
//  * resume() relaunches a Paused launch from its checkpoint, with \p Width
//    workers (Ptb) or blocks per slice (Slices). A width other than the
//    launch's last one is allowed only where facts().CanResize. \p After,
//    if nonzero, names a launch issued before this one on the same client
//    stream that has not completed: the device starts the resumed launch
//    only once After is Done (the stream orders it; nothing is waited for on
//    the host). Until then it holds no SM, and a pause requested meanwhile
//    is reported only after it has started and seen the flag.
//  * vacate() (only where facts().CanVacate) asks the workers of a Ptb
//    launch on SMs 0..Sms-1 to leave before their next claim, while the
//    others go on; it holds for the launch's later runs until changed. A
//    worker that left comes back only with a resume, so a lower value gives
//    SMs back only then. A launch all of whose workers left with work left
//    reports Paused, though no pause was requested.
//  * poll() returns, without blocking, the launches that became Paused or
//    Done since the last call, in the order they did.
//  * Every virtual block of a launch runs exactly once, however often it is
//    paused and resumed, at whatever widths.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SCHEDULEREXECUTOR_H
#define BATON_SCHEDULEREXECUTOR_H

#include <any>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace baton::sched {

using Nanos = std::chrono::nanoseconds;

/// A monotonic clock; virtual in simulation.
class Clock {
public:
  virtual ~Clock() = default;
  virtual Nanos now() const = 0;
};

/// The launch forms of a kernel (mirrors baton::Mode without needing cuda.h).
enum class Form { Original, Slices, Ptb };

/// Per-SM resource limits that decide how many blocks of a kernel fit on one
/// SM (occupancy). Allocation granularity is ignored: the figures are upper
/// bounds that the policy and the simulation share.
struct SmLimits {
  uint32_t MaxThreads = 2048;
  uint32_t MaxBlocks = 32;
  uint32_t Registers = 65536;
  uint32_t SharedMemBytes = 228 * 1024;
};

/// What the scheduler may assume about the device and the runtime over it.
struct DeviceFacts {
  uint32_t Multiprocessors = 132;
  SmLimits Sm;
  /// From raising `preempt` to the device seeing it (H100: about 7 us).
  Nanos SignalLatency = std::chrono::microseconds(7);
  /// Fixed cost of one (re)launch of a variant (H100: about 20 us).
  Nanos RelaunchOverhead = std::chrono::microseconds(20);
  /// Slice launches in flight at once; a pause waits for all of them.
  uint32_t SliceWindow = 2;
  /// Whether resume() may change a launch's width (space sharing needs it).
  bool CanResize = true;
  /// Whether PTB workers leave the SMs below a watermark on request
  /// (Executor::vacate; task ABI 3). Space sharing then keeps SMs whole for
  /// LC work without a pause; without it, a narrower relaunch leaves fewer
  /// workers spread over every SM, which frees none (the hardware spreads
  /// blocks).
  bool CanVacate = false;
  /// Most launches that may run behind a BE queue's head at once (0: no
  /// limit). Each holds a stream waiting on the device, and once about as
  /// many streams wait as the driver has hardware queues, no stream's work
  /// starts, not even the resumes that would release them
  /// (docs/scheduling.md, "Deadlocks avoided"); the scheduler's windows
  /// (SchedulerOptions::LaunchesAhead*) are capped to it.
  uint32_t MaxLaunchesAhead = 0;
  /// Resident PTB workers per SM, and warps per SM, up to which a paused
  /// worker stops after the block it holds (an SM within both is "prompt").
  /// On a fuller SM, warps that seldom stall (dense arithmetic, spinning)
  /// can keep a worker's flag check and claim from issuing, and it may start
  /// another block after the flag is visible. H200: 4 workers per SM were
  /// prompt with 64- and 128-thread workers; 8 of 64 threads (16 warps) and
  /// 16 of 128 threads were not (bench/claim_starvation,
  /// bench/preempt_timeline). 0: no such limit.
  uint32_t PromptClaimWorkersPerSm = 4;
  uint32_t PromptClaimWarpsPerSm = 16;
  /// How many times those limits a kernel's own pauses may take its launches
  /// to as prompt (SchedulerOptions::PromptFromPauses; 0: no cap). Each
  /// occupancy is judged on a few pauses, and those of one whose drains
  /// grow are what LC work waits for while it is judged: uncapped, probes
  /// of 5 and 6 of the colocation MLP's 8-warp workers per SM took bert's
  /// p99 to 1.25x at 50% load and 2.0-2.6x in some windows at 10%; at twice
  /// the limits its p99 was that of the limits (H200, docs/benchmarks.md,
  /// fifty-ninth and sixty-first sessions).
  uint32_t PromptClimbTimesLimits = 2;
  /// How much longer than one block the drain of a crowded (not prompt) SM
  /// may take, at least: H200, p99 of a pause at full occupancy was signal
  /// + block + 40-55 us for 5 and 50 us blocks, + 0.6 block for 200 us and
  /// 1 ms ones (bench/runtime/preempt_policy, bench/preempt_timeline).
  Nanos CrowdedExtraDrain = std::chrono::microseconds(60);
};

/// The static facts of a kernel launch, as far as the client knows them.
/// Registers and shared memory of 0 mean "not given" (no limit from them).
struct KernelShape {
  std::string Name; ///< key of the per-kernel duration estimates
  uint64_t Blocks = 1;
  uint32_t ThreadsPerBlock = 1;
  uint32_t RegistersPerThread = 0;
  uint32_t SharedMemBytes = 0; ///< static + dynamic, per block
  bool HasPtb = false;
  bool HasSlice = false;
};

/// One launch as the scheduler hands it to an executor.
struct LaunchRequest {
  uint64_t Id = 0;
  const KernelShape *Shape = nullptr;
  Form LaunchForm = Form::Original;
  uint32_t Width = 0; ///< workers (Ptb) or blocks per slice (Slices)
  bool HighPriority = false;
  uint32_t Queue = 0;             ///< best-effort stream; 0 for LC work
  const std::any *Payload = nullptr; ///< executor-specific (see each executor)
  /// Slices and Ptb only: issue the launch now, in its stream's order, but
  /// run none of its blocks until resume(); it is Paused from the start and
  /// reports no completion until resumed.
  bool StartPaused = false;
  /// BE only, not StartPaused: the launch of the same queue it is issued
  /// behind, which its stream completes first (0: none).
  uint64_t After = 0;
  /// Ptb: the most virtual blocks a worker claims at once (task.h,
  /// claim_chunk); kept across the launch's pauses and resumes.
  uint32_t ClaimChunk = 1;
  /// Ptb, where CanVacate: SMs 0..VacatedSms-1 are left to other work from
  /// the start (Executor::vacate).
  uint32_t VacatedSms = 0;
  /// Ptb: the most blocks a first share may hold where shares cover the
  /// grid (LaunchConfig::CoveringShareLimit); 0: at most ClaimChunk.
  uint32_t CoveringShareLimit = 0;
  /// Whether the scheduler wants the launch's runs measured. False: the
  /// executor may skip the cost of measuring them, and reports their
  /// completions with Completion::Measured false.
  bool TimeRuns = true;
};

/// A launch that stopped. Elapsed and BlocksRun cover the interval since the
/// launch or its last resume; they feed the scheduler's duration estimates.
struct Completion {
  enum Kind { Paused, Done };
  uint64_t Id = 0;
  Kind What = Done;
  Nanos At{0};
  /// How long the launch's blocks ran: from the first block starting to the
  /// last one ending where the executor can tell, else from (re)launch.
  Nanos Elapsed{0};
  uint64_t BlocksRun = 0;
  /// False for the runs of a launch requested with TimeRuns false: Elapsed
  /// is then no measurement, and the scheduler's estimates ignore it.
  bool Measured = true;
  /// PTB: workers of the run that stopped at the preempt word (a pause, or
  /// a vacated SM; those placed on one leave before their first claim).
  uint32_t WorkersLeft = 0;
};

class Executor {
public:
  virtual ~Executor() = default;
  virtual const DeviceFacts &facts() const = 0;
  virtual const Clock &clock() const = 0;
  virtual void launch(const LaunchRequest &Request) = 0;
  virtual void requestPause(uint64_t Id) = 0;
  virtual void resume(uint64_t Id, uint32_t Width, uint64_t After) = 0;
  /// A PTB launch issued paused that has run nothing runs as the original
  /// kernel instead, behind \p After as resume() would; it can no longer be
  /// paused.
  virtual void resumeAsOriginal(uint64_t Id, uint64_t After) = 0;
  virtual void vacate(uint64_t Id, uint32_t Sms) = 0;
  virtual std::vector<Completion> poll() = 0;
  /// Called once on a SchedulerService's thread before the service calls
  /// anything else from it (the other calls come from that thread and from
  /// clients' threads).
  virtual void serviceThreadStarted() {}
};

} // namespace baton::sched

#endif // BATON_SCHEDULEREXECUTOR_H
