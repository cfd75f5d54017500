//===- SchedulerPolicy.cpp - The scheduler's decisions --------------------===//

#include "SchedulerPolicy.h"

#include "baton/task.h"

#include <algorithm>
#include <cmath>
#include <iterator>

using namespace baton::sched;

uint32_t baton::sched::blocksPerSm(const SmLimits &Sm, const KernelShape &Shape,
                                   Form F) {
  uint32_t Threads = std::max<uint32_t>(Shape.ThreadsPerBlock, 1);
  uint32_t Fit = std::min(Sm.MaxBlocks, Sm.MaxThreads / Threads);
  if (Shape.RegistersPerThread)
    Fit = std::min(Fit, Sm.Registers / (Shape.RegistersPerThread * Threads));
  uint32_t Shared = Shape.SharedMemBytes;
  if (F == Form::Ptb)
    Shared += BATON_PTB_DYNAMIC_SHARED_BYTES;
  if (Shared)
    Fit = std::min(Fit, Sm.SharedMemBytes / Shared);
  return Fit;
}

uint64_t baton::sched::blocksPerWave(const DeviceFacts &Device,
                                     const KernelShape &Shape, Form F) {
  return uint64_t(std::max<uint32_t>(blocksPerSm(Device.Sm, Shape, F), 1)) *
         Device.Multiprocessors;
}

Nanos baton::sched::wholeDeviceDuration(const DeviceFacts &Device,
                                        const KernelShape &Shape, Nanos Block,
                                        Form F) {
  uint64_t Wave = blocksPerWave(Device, Shape, F);
  return Block * static_cast<int64_t>((Shape.Blocks + Wave - 1) / Wave);
}

uint32_t baton::sched::smsForOneWave(const DeviceFacts &Device,
                                     const KernelShape &Shape) {
  uint64_t PerSm = std::max<uint32_t>(
      blocksPerSm(Device.Sm, Shape, Form::Original), 1);
  uint64_t Sms = (Shape.Blocks + PerSm - 1) / PerSm;
  return static_cast<uint32_t>(
      std::min<uint64_t>(Sms, Device.Multiprocessors));
}

uint32_t baton::sched::blocksSharingAnSm(const DeviceFacts &Device,
                                         const KernelShape &Shape, Form F,
                                         uint64_t Width) {
  uint64_t Resident =
      std::min({Width, Shape.Blocks, blocksPerWave(Device, Shape, F)});
  uint64_t All = std::max<uint32_t>(Device.Multiprocessors, 1);
  return static_cast<uint32_t>(
      std::max<uint64_t>((Resident + All - 1) / All, 1));
}

Nanos BlockDurations::at(uint32_t PerSm) const {
  if (!ByOccupancy || ByOccupancy->empty())
    return Fallback;
  auto Above = ByOccupancy->lower_bound(PerSm);
  if (Above == ByOccupancy->begin())
    return Above->second;
  auto Below = std::prev(Above);
  if (Above == ByOccupancy->end() ||
      PerSm - Below->first < Above->first - PerSm)
    return Below->second;
  return Above->second;
}

BlockDurations DurationModel::of(const std::string &Kernel) const {
  auto It = Kernels.find(Kernel);
  if (It == Kernels.end())
    return BlockDurations::assumed(Default);
  return {It->second.ByOccupancy, Default};
}

Nanos DurationModel::latest(const std::string &Kernel) const {
  auto It = Kernels.find(Kernel);
  return It == Kernels.end() ? Default
                             : It->second.ByOccupancy.at(It->second.Latest);
}

std::optional<Nanos> DurationModel::measuredAt(const std::string &Kernel,
                                               uint32_t PerSm) const {
  auto It = Kernels.find(Kernel);
  if (It == Kernels.end())
    return std::nullopt;
  auto At = It->second.ByOccupancy.find(PerSm);
  if (At == It->second.ByOccupancy.end())
    return std::nullopt;
  return At->second;
}

void DurationModel::recordBlock(const std::string &Kernel, uint32_t PerSm,
                                const BlockSample &Sample) {
  auto [KernelIt, NewKernel] = Kernels.try_emplace(Kernel);
  Estimates &K = KernelIt->second;
  K.Latest = PerSm;
  Nanos Nearest = BlockDurations(K.ByOccupancy, Default).at(PerSm);
  auto [It, New] = K.ByOccupancy.try_emplace(PerSm, Nearest);
  if (NewKernel) {
    It->second = Sample.Block; // the first measurement replaces the guess
    return;
  }
  // n samples of one value in a row move the average this far towards it.
  double W = 1.0 - std::pow(1.0 - Weight,
                            static_cast<double>(std::max<uint64_t>(
                                Sample.Rounds, 1)));
  double Next = static_cast<double>(It->second.count()) +
                W * static_cast<double>((Sample.Block - It->second).count());
  It->second = Nanos(static_cast<int64_t>(Next));
}

std::optional<BlockSample>
baton::sched::measuredBlock(const Completion &C, uint64_t Concurrency) {
  if (C.BlocksRun == 0)
    return std::nullopt;
  uint64_t Side = std::max<uint64_t>(Concurrency, 1);
  uint64_t Rounds = (C.BlocksRun + Side - 1) / Side;
  return BlockSample{C.Elapsed / static_cast<int64_t>(Rounds), Rounds};
}

/// The median of \p Drains (the upper one of an even count).
static Nanos medianOf(std::vector<Nanos> Drains) {
  auto Mid = Drains.begin() + Drains.size() / 2;
  std::nth_element(Drains.begin(), Mid, Drains.end());
  return *Mid;
}

uint32_t PromptModel::limit(const std::string &Kernel) const {
  auto It = Kernels.find(Kernel);
  return It == Kernels.end() ? 0 : It->second.Limit;
}

uint32_t
PromptModel::judge(const std::map<uint32_t, std::vector<Nanos>> &ByPerSm) {
  std::optional<Nanos> Base;
  uint32_t HighestPrompt = 0, LowestGrown = UINT32_MAX;
  for (const auto &[PerSm, Drains] : ByPerSm) {
    if (Drains.size() < SamplesToJudge)
      continue;
    Nanos Median = medianOf(Drains);
    if (!Base) {
      Base = Median;
      HighestPrompt = PerSm;
    } else if (static_cast<double>(Median.count()) >
               Growth * static_cast<double>(Base->count())) {
      LowestGrown = std::min(LowestGrown, PerSm);
    } else if (PerSm < LowestGrown) {
      HighestPrompt = PerSm;
    }
  }
  if (!Base)
    return 0;
  return std::min(HighestPrompt + 1, LowestGrown - 1);
}

void PromptModel::recordPause(const std::string &Kernel, uint32_t PerSm,
                              Nanos Drain) {
  Pauses &Seen = Kernels[Kernel];
  std::vector<Nanos> &Drains = Seen.Drains[PerSm];
  if (Drains.size() < SamplesKept) {
    Drains.push_back(Drain);
    Seen.Limit = judge(Seen.Drains);
  }
}

SharingChoice baton::sched::chooseSharing(const DeviceFacts &Device,
                                          const KernelShape &Shape,
                                          Nanos LcBlock, Nanos BeBlock) {
  uint32_t Sms = smsForOneWave(Device, Shape);
  uint32_t All = Device.Multiprocessors;
  if (!Device.CanResize || Sms >= All)
    return {Sharing::Time, All};
  // BE work leaves the SMs the LC kernel needs and keeps the rest running:
  // no relaunch to pay for.
  if (Device.CanVacate)
    return {Sharing::Space, Sms};
  // One wave on its SMs: the LC kernel takes about one block duration, and
  // BE keeps the other SMs for that long, paying one extra drain + relaunch.
  Nanos Gain = LcBlock * (All - Sms) / All;
  Nanos Cost = Device.RelaunchOverhead + Device.SignalLatency + BeBlock;
  if (Gain > Cost)
    return {Sharing::Space, Sms};
  return {Sharing::Time, All};
}

/// PTB workers per SM within which every worker stops after the block it
/// holds (DeviceFacts::PromptClaimWorkersPerSm), for blocks of \p Threads.
static uint64_t promptWorkersPerSm(const DeviceFacts &Device,
                                   uint32_t Threads) {
  uint64_t Prompt = UINT64_MAX;
  if (Device.PromptClaimWorkersPerSm)
    Prompt = Device.PromptClaimWorkersPerSm;
  if (Device.PromptClaimWarpsPerSm) {
    uint64_t Warps = (std::max<uint32_t>(Threads, 1) + 31) / 32;
    Prompt = std::min<uint64_t>(
        Prompt, std::max<uint64_t>(Device.PromptClaimWarpsPerSm / Warps, 1));
  }
  return Prompt;
}

uint32_t baton::sched::chooseClaimChunk(const DeviceFacts &Device,
                                        Nanos Block, Nanos ClaimInterval,
                                        Nanos Bound) {
  if (Block.count() <= 0 || ClaimInterval <= Block)
    return 1;
  int64_t Chunk = std::min<int64_t>(
      (ClaimInterval.count() + Block.count() - 1) / Block.count(),
      BATON_MAX_CLAIM_CHUNK);
  // A paused worker may have just claimed, and on a crowded SM claim once
  // more: two claims' blocks, after the signal.
  if (Bound > Device.SignalLatency)
    Chunk = std::min<int64_t>(
        Chunk, (Bound - Device.SignalLatency).count() / (2 * Block.count()));
  return static_cast<uint32_t>(std::max<int64_t>(Chunk, 1));
}

/// The most blocks, from \p Chunk up to BATON_MAX_CLAIM_CHUNK, that a
/// worker may hold before it looks at `preempt` with \p YieldOf that many
/// within \p Bound; \p Chunk alone where the claim already misses it, and
/// for blocks of no duration, which would bound nothing.
template <typename YieldFn>
static uint32_t mostHeldWithin(uint32_t Chunk, Nanos Block, Nanos Bound,
                               YieldFn YieldOf) {
  uint32_t Held = Chunk;
  if (Block.count() <= 0)
    return Held;
  while (Held < BATON_MAX_CLAIM_CHUNK && YieldOf(Held + 1) <= Bound)
    ++Held;
  return Held;
}

static WidthChoice choosePtb(const DeviceFacts &Device,
                             const KernelShape &Shape,
                             const BlockDurations &Blocks, uint32_t FreeSms,
                             Nanos Bound, uint32_t ReserveSms,
                             Nanos ClaimInterval, Nanos ShareBound,
                             uint32_t PromptLimit) {
  uint64_t PerSm =
      std::max<uint32_t>(blocksPerSm(Device.Sm, Shape, Form::Ptb), 1);
  uint64_t DevicePrompt =
      std::min(PerSm, promptWorkersPerSm(Device, Shape.ThreadsPerBlock));
  // The kernel's own pauses may have shown more workers per SM prompt
  // enough (PromptModel), up to a few times the device's limits.
  uint64_t MostPrompt = Device.PromptClimbTimesLimits
                            ? std::min<uint64_t>(
                                  PerSm, Device.PromptClimbTimesLimits *
                                             DevicePrompt)
                            : PerSm;
  uint64_t Prompt = std::clamp<uint64_t>(PromptLimit, DevicePrompt, MostPrompt);
  uint32_t All = Device.Multiprocessors;
  // Each occupancy is judged by its own block time (blocks often take
  // longer beside more of their kind). The claim chunk is one for both: a
  // launch keeps it across pauses and resumes at either width.
  Nanos FullBlock = Blocks.at(static_cast<uint32_t>(PerSm));
  Nanos Block = Blocks.at(static_cast<uint32_t>(Prompt));
  uint32_t Chunk =
      std::min(chooseClaimChunk(Device, FullBlock, ClaimInterval, Bound),
               chooseClaimChunk(Device, Block, ClaimInterval, Bound));
  // Workers for \p Sms SMs at \p Workers each. Where workers can vacate
  // SMs, a launch at full occupancy gets workers for every SM (the hardware
  // spreads them) and the watermark sends those on the SMs not kept away.
  // One held to fewer workers per SM gets them for the kept SMs only: while
  // LC blocks fill the vacated SMs, the hardware puts every worker on the
  // kept ones, and more than that number there would drain too slowly.
  auto On = [&](uint32_t Sms, uint64_t Workers, Nanos Latency,
                bool Meets) -> WidthChoice {
    Sms = std::clamp<uint32_t>(Sms, 1, All);
    uint32_t Spread = Device.CanVacate && Workers >= PerSm ? All : Sms;
    uint64_t Width = std::min<uint64_t>(Workers * Spread, Shape.Blocks);
    // Where SMs are vacated, the workers run on the kept ones; otherwise the
    // hardware spreads them over every SM.
    uint64_t Over = Device.CanVacate ? Sms : All;
    auto Occupancy = static_cast<uint32_t>(std::clamp<uint64_t>(
        (Width + Over - 1) / Over, 1, std::max<uint64_t>(Workers, 1)));
    return {Form::Ptb,        static_cast<uint32_t>(Width),
            Latency,          Meets,
            Chunk,            Device.CanVacate ? All - Sms : 0,
            Occupancy};
  };
  // A paused worker finishes the claim (or first share) of \p Held blocks
  // it holds. On a prompt SM every worker stops after that; a fuller one
  // may drain for a while longer.
  auto FullYieldOf = [&](uint32_t Held) {
    Nanos FullHeld = FullBlock * Held;
    Nanos Yield = Device.SignalLatency + FullHeld;
    if (PerSm > Prompt)
      Yield += std::max(FullHeld, Device.CrowdedExtraDrain);
    return Yield;
  };
  auto PromptYieldOf = [&](Nanos Of) {
    return [&Device, Of](uint32_t Held) {
      return Device.SignalLatency + Of * Held;
    };
  };
  // A first share runs without a look at `preempt`: beyond a claim, it is
  // sized only on blocks measured at the occupancy it runs at (blocks take
  // longer beside more of their kind).
  auto CoveringLimit = [&](uint64_t Occupancy, auto YieldOf) {
    auto At = static_cast<uint32_t>(Occupancy);
    return Blocks.measuredAt(At)
               ? mostHeldWithin(Chunk, Blocks.at(At), ShareBound, YieldOf)
               : Chunk;
  };
  if (Nanos FullYield = FullYieldOf(Chunk); FullYield <= Bound) {
    WidthChoice Full = On(FreeSms, PerSm, FullYield, true);
    Full.CoveringShareLimit = CoveringLimit(PerSm, FullYieldOf);
    return Full;
  }
  // Fewer workers per SM keep the bound, at some throughput: the most
  // that do, down to the device's prompt limit.
  Nanos Yield{0};
  for (uint64_t Workers = Prompt;; --Workers) {
    auto YieldOf = PromptYieldOf(Blocks.at(static_cast<uint32_t>(Workers)));
    Yield = YieldOf(Chunk);
    if (Yield <= Bound) {
      WidthChoice Fewer = On(FreeSms, Workers, Yield, true);
      Fewer.CoveringShareLimit = CoveringLimit(Workers, YieldOf);
      return Fewer;
    }
    if (Workers <= DevicePrompt)
      break;
  }
  Prompt = DevicePrompt; // the loop's last Yield is this one's
  // Blocks too long to yield in time: leave SMs idle for LC work instead,
  // and keep the drain of LC work that needs every SM to one block. SMs
  // that active LC work already holds count towards the reserve when they
  // can be vacated; otherwise the workers spread anyway, and only fewer of
  // them leave room. A reserve of none or of the whole device (LC work that
  // needs every SM) leaves nothing to keep idle: prompt SMs everywhere.
  if (ReserveSms == 0 || ReserveSms >= All)
    return On(FreeSms, Prompt, Yield, false);
  if (Device.CanVacate)
    return On(std::min(FreeSms, All - ReserveSms), Prompt, Nanos(0), true);
  if (FreeSms > ReserveSms)
    return On(FreeSms - ReserveSms, Prompt, Nanos(0), true);
  return On(1, Prompt, Yield, false);
}

static WidthChoice chooseSlices(const DeviceFacts &Device,
                                const KernelShape &Shape,
                                const BlockDurations &Blocks, uint32_t FreeSms,
                                Nanos Bound) {
  uint32_t PerSm =
      std::max<uint32_t>(blocksPerSm(Device.Sm, Shape, Form::Slices), 1);
  uint64_t Wave = uint64_t(PerSm) * std::max<uint32_t>(FreeSms, 1);
  Nanos Block = Blocks.at(PerSm);
  // A pause waits for every slice in flight; each slice of k waves takes
  // about k block durations. Bigger slices mean fewer launches.
  Nanos PerWindowWave = Block * std::max<uint32_t>(Device.SliceWindow, 1);
  // (A slice never needs more waves than there are blocks, which also
  // keeps an unbounded Bound from overflowing the product below.)
  uint64_t Waves = PerWindowWave.count() > 0
                       ? std::clamp<uint64_t>(Bound / PerWindowWave, 1,
                                              std::max<uint64_t>(Shape.Blocks, 1))
                       : 1;
  uint64_t Width = std::min(Wave * Waves, Shape.Blocks);
  Nanos Latency = PerWindowWave * static_cast<int64_t>((Width + Wave - 1) / Wave);
  return {Form::Slices, static_cast<uint32_t>(Width), Latency,
          Latency <= Bound, 1, 0, PerSm};
}

WidthChoice baton::sched::chooseWidth(const DeviceFacts &Device,
                                      const KernelShape &Shape,
                                      const BlockDurations &Blocks,
                                      uint32_t FreeSms, Nanos Bound,
                                      uint32_t ReserveSms, Nanos ClaimInterval,
                                      std::optional<Nanos> ShareBound,
                                      uint32_t PromptLimit) {
  if (Shape.HasPtb)
    return choosePtb(Device, Shape, Blocks, FreeSms, Bound, ReserveSms,
                     ClaimInterval, ShareBound.value_or(Bound), PromptLimit);
  if (Shape.HasSlice)
    return chooseSlices(Device, Shape, Blocks, FreeSms, Bound);
  return originalChoice(Device, Shape, Blocks); // no variant
}

WidthChoice baton::sched::originalChoice(const DeviceFacts &Device,
                                         const KernelShape &Shape,
                                         const BlockDurations &Blocks) {
  uint32_t Occupancy =
      blocksSharingAnSm(Device, Shape, Form::Original, Shape.Blocks);
  Nanos Block = Blocks.at(Occupancy);
  return {Form::Original,
          static_cast<uint32_t>(Shape.Blocks),
          wholeDeviceDuration(Device, Shape, Block, Form::Original),
          false,
          1,
          0,
          Occupancy};
}

bool baton::sched::isOneBlockPerWorker(const KernelShape &Shape,
                                       const WidthChoice &Choice) {
  // chooseWidth never gives more workers than fit at once, so a worker for
  // every block is one wave; none of them claims a second block.
  return Choice.LaunchForm == Form::Ptb && Choice.VacatedSms == 0 &&
         Choice.Width >= Shape.Blocks;
}
