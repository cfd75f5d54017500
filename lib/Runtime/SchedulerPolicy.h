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

#include <map>
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

/// Per-kernel block durations: a static default until measured, then an
/// exponential moving average of the measurements.
class DurationModel {
public:
  DurationModel(Nanos Default, double Weight)
      : Default(Default), Weight(Weight) {}
  Nanos block(const std::string &Kernel) const;
  void recordBlock(const std::string &Kernel, Nanos Sample);

private:
  Nanos Default;
  double Weight;
  std::map<std::string, Nanos> Estimates;
};

/// The per-block duration a completion of \p Shape measured, or nullopt if
/// it ran no block. \p Concurrency is how many blocks ran side by side.
std::optional<Nanos> measuredBlock(const Completion &C, uint64_t Concurrency);

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
};

/// The most blocks of \p Block a PTB worker claims at once: enough for
/// \p ClaimInterval of work per claim, at most BATON_MAX_CLAIM_CHUNK, and
/// few enough that signal + two claims' work stays within \p Bound.
uint32_t chooseClaimChunk(const DeviceFacts &Device, Nanos Block,
                          Nanos ClaimInterval, Nanos Bound);

/// Form and width of a BE launch of \p Shape on \p FreeSms SMs, with blocks
/// of \p Block, so that LC work waits at most \p Bound for it where the
/// kernel allows, keeping \p ReserveSms idle when only that helps. A PTB
/// worker claims blocks worth about \p ClaimInterval at once.
WidthChoice chooseWidth(const DeviceFacts &Device, const KernelShape &Shape,
                        Nanos Block, uint32_t FreeSms, Nanos Bound,
                        uint32_t ReserveSms, Nanos ClaimInterval);

/// \p Shape launched as the original kernel, which runs to completion and
/// cannot yield, with blocks of \p Block.
WidthChoice originalChoice(const DeviceFacts &Device, const KernelShape &Shape,
                           Nanos Block);

/// Whether \p Choice runs \p Shape as one wave of PTB workers that each
/// take one block: such a launch can be stopped only before it starts.
bool isOneBlockPerWorker(const KernelShape &Shape, const WidthChoice &Choice);

} // namespace baton::sched

#endif // BATON_LIB_RUNTIME_SCHEDULERPOLICY_H
