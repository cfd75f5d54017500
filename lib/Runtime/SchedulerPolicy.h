//===- SchedulerPolicy.h - The scheduler's decisions, as pure functions -*- C++ -*-===//
//
// Everything the scheduler decides from numbers alone: occupancy, how an LC
// kernel shares the device with BE work, and the form and width of a BE
// launch under a preemption-latency bound; plus the per-kernel duration
// estimates those decisions read. No executor, no clock: unit tests check
// each rule directly. Scheduler.h states the rules in prose.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_SCHEDULERPOLICY_H
#define BATON_LIB_RUNTIME_SCHEDULERPOLICY_H

#include "baton/Scheduler.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace baton::sched {

/// Blocks of \p Shape, launched as \p F, that fit on one SM (at least 0).
/// A PTB launch carries the worker's loop state in extra dynamic shared
/// memory (task.h), which can lower its occupancy below the original's.
uint32_t blocksPerSm(const SmLimits &Sm, const KernelShape &Shape, Form F);

/// Blocks of \p Shape, launched as \p F, that the whole device runs at once
/// (at least one per SM).
uint64_t blocksPerWave(const DeviceFacts &Device, const KernelShape &Shape,
                       Form F);

/// How long a launch of \p Shape as \p F runs on the whole device at
/// \p Block per block: its waves, one after another.
Nanos wholeDeviceDuration(const DeviceFacts &Device, const KernelShape &Shape,
                          Nanos Block, Form F);

/// SMs an original launch of \p Shape needs to run as one wave; the whole
/// device when it needs more than one.
uint32_t smsForOneWave(const DeviceFacts &Device, const KernelShape &Shape);

/// Blocks of a launch of \p Shape as \p F, \p Width blocks (workers, for
/// Ptb) wide, that share one SM: the key of the duration estimates. The
/// hardware spreads a launch's blocks over every SM, so a narrower launch
/// puts fewer on each. At least 1.
uint32_t blocksSharingAnSm(const DeviceFacts &Device, const KernelShape &Shape,
                           Form F, uint64_t Width);

/// One kernel's block durations by occupancy (its blocks sharing an SM).
/// Blocks that share an SM's memory bandwidth and issue slots take longer
/// beside more of their kind: the colocation MLP's products on the H100 ran
/// longer blocks at full occupancy than at 2 per SM, and one estimate for
/// both made a bound between the two swing the width from launch to launch
/// (docs/benchmarks.md, thirty-fifth session). Either one duration for
/// every occupancy, or a view of a DurationModel's estimates, valid while
/// the model lives.
class BlockDurations {
public:
  /// \p Block at every occupancy (any duration that converts to Nanos
  /// exactly).
  template <class Rep, class Period>
  BlockDurations(std::chrono::duration<Rep, Period> Block) : Fallback(Block) {}
  BlockDurations(const std::map<uint32_t, Nanos> &ByOccupancy, Nanos Fallback)
      : ByOccupancy(&ByOccupancy), Fallback(Fallback) {}
  BlockDurations(std::map<uint32_t, Nanos> &&, Nanos) = delete; // a view
  /// \p Block at every occupancy, for a kernel none of whose runs was
  /// measured yet: a guess, not an estimate.
  static BlockDurations assumed(Nanos Block) {
    BlockDurations Guess(Block);
    Guess.Measured = false;
    return Guess;
  }
  /// The estimate at \p PerSm blocks per SM; where none was measured there,
  /// the one measured at the nearest occupancy (the fuller of two as near:
  /// its blocks are the longer), else the fallback.
  Nanos at(uint32_t PerSm) const;
  /// Whether the estimate at \p PerSm blocks per SM comes from runs at
  /// that occupancy (or was given), rather than from another occupancy's or
  /// assumed for a kernel never measured.
  bool measuredAt(uint32_t PerSm) const {
    return ByOccupancy ? ByOccupancy->count(PerSm) > 0 : Measured;
  }

private:
  const std::map<uint32_t, Nanos> *ByOccupancy = nullptr;
  Nanos Fallback;
  bool Measured = true;
};

/// A block duration measured by one run of a launch: its elapsed time over
/// the \p Rounds of blocks it ran one after another.
struct BlockSample {
  Nanos Block{0};
  uint64_t Rounds = 1;
};

/// Per-kernel block durations, per occupancy: a static default until
/// measured, then an exponential moving average of the measurements made at
/// that occupancy, in which a sample of n rounds counts as n samples. A run
/// of one round says little: its elapsed time holds its (re)launch and the
/// slowest block's tail, and a few of them in a row once held a kernel's
/// full-occupancy estimate over the bound, where nothing measured it again
/// while LC work was about. So only a kernel's first measurement replaces
/// the static default outright; one at a new occupancy moves the estimate
/// it had there (the nearest occupancy's) as any other sample does.
class DurationModel {
public:
  DurationModel(Nanos Default, double Weight)
      : Default(Default), Weight(Weight) {}
  BlockDurations of(const std::string &Kernel) const;
  /// The estimate at the occupancy \p Kernel was last measured at.
  Nanos latest(const std::string &Kernel) const;
  /// The estimate of runs of \p Kernel measured at \p PerSm blocks per
  /// SM; nullopt where none was (no other occupancy's stands in).
  std::optional<Nanos> measuredAt(const std::string &Kernel,
                                  uint32_t PerSm) const;
  void recordBlock(const std::string &Kernel, uint32_t PerSm,
                   const BlockSample &Sample);

private:
  struct Estimates {
    std::map<uint32_t, Nanos> ByOccupancy;
    uint32_t Latest = 0;
  };
  Nanos Default;
  double Weight;
  std::map<std::string, Estimates> Kernels;
};

/// The per-block duration a completion measured, or nullopt if it ran no
/// block. \p Concurrency is how many blocks ran side by side.
std::optional<BlockSample> measuredBlock(const Completion &C,
                                         uint64_t Concurrency);

/// Per kernel, the drains its pauses took at each occupancy (PTB workers
/// per SM), which say how many workers per SM a launch may be held to as a
/// prompt one is. The device's limits (DeviceFacts::PromptClaimWarpsPerSm)
/// come from kernels whose warps seldom stall: on a fuller SM such a
/// worker's claim may wait to issue for about a block, so it starts one
/// more, and the width policy assumes that second block there. A kernel
/// whose warps wait on memory and barriers does not starve the claims:
/// held to 4 workers per SM (8-warp workers, where the limits allow 2), the
/// colocation MLP's products kept 0.45-0.48 of training at 50% load instead
/// of 0.35 (H200, docs/benchmarks.md, fifty-ninth session, calls b and d).
///
/// The lowest occupancy judged (after SamplesToJudge pauses), usually the
/// device's prompt one, where launches start, is the base. A higher one is
/// judged prompt while the median of its drains stays within Growth times the
/// base's, grown past it otherwise: a starved claim doubles the drain, and
/// longer blocks lengthen it too, which the LC work waits for (with the
/// climb stopped only where the blocks met the bound, bert's p99 beside the
/// MLP rose to 1.3-1.6x, call e). A launch may be held to one worker per SM
/// more than the most judged prompt, never to as many as one judged grown,
/// and (choosePtb) never past DeviceFacts::PromptClimbTimesLimits times the
/// device's limits.
class PromptModel {
public:
  static constexpr uint32_t SamplesToJudge = 8;
  /// Drains kept per occupancy, of which the median judges it.
  static constexpr uint32_t SamplesKept = 16;
  static constexpr double Growth = 1.2;
  /// The most workers per SM the width policy may treat as prompt for
  /// \p Kernel (0: no base yet; the device's limits apply). choosePtb
  /// never goes below the device's limits, nor past
  /// DeviceFacts::PromptClimbTimesLimits times them.
  uint32_t limit(const std::string &Kernel) const;
  /// A pause of \p Kernel's launch held to \p PerSm workers per SM took
  /// \p Drain, from the ask to the completion the host saw.
  void recordPause(const std::string &Kernel, uint32_t PerSm, Nanos Drain);

private:
  struct Pauses {
    std::map<uint32_t, std::vector<Nanos>> Drains; ///< by workers per SM
    /// limit(), judged again at each pause rather than at each width choice.
    uint32_t Limit = 0;
  };
  static uint32_t judge(const std::map<uint32_t, std::vector<Nanos>> &ByPerSm);
  std::map<std::string, Pauses> Kernels;
};

struct SharingChoice {
  Sharing How = Sharing::Time;
  uint32_t Sms = 0; ///< SMs the LC kernel is given under space sharing
};

/// How BE work yields to an LC kernel of \p Shape whose blocks take
/// \p LcBlock, while BE blocks take \p BeBlock.
SharingChoice chooseSharing(const DeviceFacts &Device, const KernelShape &Shape,
                            Nanos LcBlock, Nanos BeBlock);

struct WidthChoice {
  Form LaunchForm = Form::Ptb;
  uint32_t Width = 0;
  /// Expected wait of an LC kernel arriving while this launch fills its SMs
  /// (0 when it leaves enough SMs free).
  Nanos ExpectedLatency{0};
  bool MeetsBound = true;
  /// Ptb: the most virtual blocks a worker claims at once (claim_chunk).
  uint32_t ClaimChunk = 1;
  /// Ptb, where the device can vacate SMs: the low SMs the launch leaves to
  /// LC work. Width then counts workers for every SM, since the hardware
  /// spreads them and those on vacated SMs leave at once.
  uint32_t VacatedSms = 0;
  /// The occupancy the choice was judged at: blocks (workers) of the launch
  /// on each SM that runs it. Its runs' block times are recorded under it.
  uint32_t BlocksPerSm = 1;
  /// Ptb: the most blocks a first share may hold, where shares of that many
  /// cover the grid, for LC work arriving as the workers start to wait at
  /// most the share bound (chooseWidth; LaunchConfig::CoveringShareLimit;
  /// ExpectedLatency counts a claim's blocks, not these); ClaimChunk where
  /// the claim alone fills it or its blocks were not measured at the
  /// occupancy judged (a share nothing interrupts is not sized on a guess),
  /// 0 on the paths that leave SMs to LC work.
  uint32_t CoveringShareLimit = 0;
};

/// The most blocks of \p Block a PTB worker claims at once: enough for
/// \p ClaimInterval of work per claim, at most BATON_MAX_CLAIM_CHUNK, and
/// few enough that signal + two claims' work stays within \p Bound.
uint32_t chooseClaimChunk(const DeviceFacts &Device, Nanos Block,
                          Nanos ClaimInterval, Nanos Bound);

/// Form and width of a BE launch of \p Shape on \p FreeSms SMs, with blocks
/// of \p Blocks (each width judged at its own occupancy), so that LC work
/// waits at most \p Bound for it where the kernel allows, keeping
/// \p ReserveSms idle when only that helps. A PTB worker claims blocks worth
/// about \p ClaimInterval at once. Its first share may hold more where
/// that keeps \p ShareBound (\p Bound if none: the scheduler lifts \p Bound
/// while the device is quiet, but a share it cannot interrupt keeps the
/// real one). \p PromptLimit (PromptModel::limit) lets it hold the launch
/// to up to that many workers per SM as prompt, where the device's limits
/// allow fewer.
WidthChoice chooseWidth(const DeviceFacts &Device, const KernelShape &Shape,
                        const BlockDurations &Blocks, uint32_t FreeSms,
                        Nanos Bound, uint32_t ReserveSms, Nanos ClaimInterval,
                        std::optional<Nanos> ShareBound = std::nullopt,
                        uint32_t PromptLimit = 0);

/// \p Shape launched as the original kernel, which runs to completion and
/// cannot yield, with blocks of \p Blocks.
WidthChoice originalChoice(const DeviceFacts &Device, const KernelShape &Shape,
                           const BlockDurations &Blocks);

/// Whether \p Choice runs \p Shape as one wave of PTB workers that each
/// take one block: such a launch can be stopped only before it starts.
bool isOneBlockPerWorker(const KernelShape &Shape, const WidthChoice &Choice);

} // namespace baton::sched

#endif // BATON_LIB_RUNTIME_SCHEDULERPOLICY_H
