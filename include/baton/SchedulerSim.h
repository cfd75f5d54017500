//===- baton/SchedulerSim.h - A simulated device for the scheduler -*- C++ -*-===//
//
// A deterministic, discrete-event model of one GPU running Baton launches, on
// a virtual clock: SMs with the resource limits of DeviceFacts, blocks whose
// duration the launch's payload (a SimKernel) gives, fixed or growing with
// the blocks beside them on their SM, and the three launch forms with their
// pause rules:
//
//  * Original: every block runs; it cannot be paused.
//  * Ptb:      `Width` workers claim `ClaimChunk` virtual blocks at a time
//              from a cursor; a pause raises `preempt`, which workers see
//              SignalLatency later, and each finishes the blocks of the
//              claim it holds before leaving.
//  * Slices:   slices of `Width` blocks, SliceWindow in flight; a pause
//              issues no further slice and waits for those in flight.
//
// Where DeviceFacts::CanVacate, a PTB launch's watermark (vacate) reaches
// its workers SignalLatency after it is set; a worker on an SM below it
// leaves at its next claim, and new workers are placed only on the SMs at or
// above it (a real worker placed below would leave at once).
//
// A (re)launch of a variant reaches the device RelaunchOverhead after it is
// issued, an original kernel KernelLaunchLatency after. Pending blocks of
// high-priority launches go first; while one does not fit anywhere, no
// low-priority block is placed (as the block scheduler favours the
// high-priority stream). By default blocks are packed onto the
// lowest-numbered SM with room, so a launch narrowed to N SMs' worth of
// blocks leaves the other SMs whole; the real block scheduler spreads
// blocks instead, which Placement::Spread models.
//
// Ties are broken by the order events were created, so a run is a pure
// function of its inputs. The record of each launch (per-block run counts,
// widths, first block time) lets tests check exactly-once execution and
// queueing delays.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SCHEDULERSIM_H
#define BATON_SCHEDULERSIM_H

#include "baton/SchedulerExecutor.h"

#include <memory>
#include <optional>
#include <vector>

namespace baton::sched {

class Scheduler;

/// Which SM a block goes to among those with room for it.
enum class Placement {
  Pack,   ///< the lowest-numbered one
  Spread, ///< the one holding the fewest blocks (the lowest of those)
};

/// The payload a simulated launch expects in Work::Payload.
struct SimKernel {
  Nanos BlockDuration{0};
  /// Added to a block's duration for every other block on its SM when it
  /// starts: blocks that share an SM's bandwidth slow each other down, so
  /// a launch's blocks take longer at a higher occupancy.
  Nanos SlowerPerNeighbour{0};
  /// PTB: on an SM that holds more blocks than this (0: none), warps that
  /// seldom stall keep a worker's claim from issuing, so a paused worker
  /// that claims within a block's time of the flag becoming visible read it
  /// before it was, and starts one more block (H200, bench/claim_starvation:
  /// a drain of about two blocks at 32 warps of dense arithmetic per SM).
  uint32_t ClaimsStarveAbove = 0;
};

class VirtualClock : public Clock {
public:
  Nanos now() const override { return Now; }
  /// Moves time forward; never backwards.
  void advanceTo(Nanos T);

private:
  Nanos Now{0};
};

/// What happened to one launch in the simulation.
struct SimRecord {
  Form LaunchForm = Form::Original;
  bool HighPriority = false;
  Nanos IssuedAt{0};
  std::optional<Nanos> FirstBlockAt;
  std::vector<uint32_t> Widths;   ///< at the launch and at every resume
  std::vector<uint32_t> RunCount; ///< per virtual block: times it ran
  uint32_t Pauses = 0;
  uint32_t Claims = 0; ///< PTB: atomics on the cursor, over every run
  /// LaunchRequest::TimeRuns: whether its completions carry a measurement.
  bool TimeRuns = true;
};

class SimulatedExecutor : public Executor {
public:
  explicit SimulatedExecutor(const DeviceFacts &Facts,
                             Nanos KernelLaunchLatency = Nanos(0),
                             Placement Where = Placement::Pack);
  ~SimulatedExecutor() override;

  const DeviceFacts &facts() const override;
  const Clock &clock() const override;
  /// Throws std::invalid_argument unless the payload is a SimKernel.
  void launch(const LaunchRequest &Request) override;
  /// Throws std::logic_error for an Original launch or one not running
  /// (one that stopped because its SMs were vacated is left as it is).
  void requestPause(uint64_t Id) override;
  /// Throws std::logic_error unless the launch is Paused.
  void resume(uint64_t Id, uint32_t Width, uint64_t After) override;
  void resumeAsOriginal(uint64_t Id, uint64_t After) override;
  /// Throws std::logic_error unless facts().CanVacate and the launch is Ptb.
  void vacate(uint64_t Id, uint32_t Sms) override;
  std::vector<Completion> poll() override;

  /// Time of the earliest pending event.
  std::optional<Nanos> nextEvent() const;
  /// Handles every event of the earliest time; false if there was none.
  bool step();
  /// Advances the clock to \p T; no event may be due before it.
  void advanceTo(Nanos T);

  const SimRecord &record(uint64_t Id) const;
  /// Blocks (workers, for Ptb) of launch \p Id on the SMs now.
  uint32_t resident(uint64_t Id) const;

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

/// Runs the simulation and \p S together until \p Until: after each event
/// time the scheduler polls. The clock ends at \p Until.
void simulateUntil(SimulatedExecutor &Sim, Scheduler &S, Nanos Until);
/// Runs until no event is left.
void simulateToEnd(SimulatedExecutor &Sim, Scheduler &S);

} // namespace baton::sched

#endif // BATON_SCHEDULERSIM_H
