//===- RegisterBudget.cpp - Registers a variant may use -------------------===//
#include "baton/Transform/RegisterBudget.h"

#include <algorithm>

namespace baton {

namespace {

constexpr uint32_t WarpSize = 32;
constexpr uint32_t MaxRegistersPerThread = 255;
/// Registers are allocated per warp in units of this many.
constexpr uint32_t AllocationUnit = 256;
constexpr uint32_t SubPartitions = 4;

uint32_t roundUp(uint32_t V, uint32_t Unit) {
  return (V + Unit - 1) / Unit * Unit;
}

} // namespace

std::optional<SmLimits> smLimits(uint32_t Sm) {
  constexpr uint64_t KiB = 1024;
  // Programming guide, "Technical Specifications per Compute Capability".
  switch (Sm) {
  case 70:
    return SmLimits{65536, 64, 32, 96 * KiB, 0};
  case 75:
    return SmLimits{65536, 32, 16, 64 * KiB, 0};
  case 80:
    return SmLimits{65536, 64, 32, 164 * KiB, KiB};
  case 86:
    return SmLimits{65536, 48, 16, 100 * KiB, KiB};
  case 87:
    return SmLimits{65536, 48, 16, 164 * KiB, KiB};
  case 89:
    return SmLimits{65536, 48, 24, 100 * KiB, KiB};
  case 90:
  case 100:
  case 103:
    return SmLimits{65536, 64, 32, 228 * KiB, KiB};
  case 120:
  case 121: // CUDA 13.0's cuda_occupancy.h treats 12.1 as 12.0
    return SmLimits{65536, 48, 32, 100 * KiB, KiB};
  default:
    return std::nullopt;
  }
}

uint32_t residentPerSm(const SmLimits &L, uint32_t Registers,
                       const BlockShape &Shape) {
  if (Registers > MaxRegistersPerThread)
    return 0;
  // An unknown block size counts warps: blocks of one warp, not bounded by
  // the block count.
  uint32_t Warps =
      Shape.Threads ? std::max(1u, (*Shape.Threads + WarpSize - 1) / WarpSize)
                    : 1;
  uint32_t RegsPerWarp = roundUp(Registers * WarpSize, AllocationUnit);
  uint32_t Resident = L.MaxWarps / Warps;
  if (Shape.Threads)
    Resident = std::min(Resident, L.MaxBlocks);
  if (RegsPerWarp) {
    // A block must fit the per-block register limit, with its warps spread
    // over all sub-partitions; each sub-partition holds whole warps.
    if (RegsPerWarp * roundUp(Warps, SubPartitions) > L.Registers)
      return 0;
    uint32_t WarpsByRegisters =
        L.Registers / SubPartitions / RegsPerWarp * SubPartitions;
    Resident = std::min(Resident, WarpsByRegisters / Warps);
  }
  uint64_t SharedPerBlock = Shape.SharedBytes + L.SharedReservedPerBlock;
  if (SharedPerBlock)
    Resident = static_cast<uint32_t>(
        std::min<uint64_t>(Resident, L.SharedBytes / SharedPerBlock));
  return Resident;
}

std::optional<uint32_t> registerBudget(const SmLimits &L,
                                       uint32_t OriginalRegisters,
                                       const BlockShape &Shape) {
  uint32_t Wanted = residentPerSm(L, OriginalRegisters, Shape);
  if (Wanted == 0)
    return std::nullopt;
  if (residentPerSm(L, MaxRegistersPerThread, Shape) >= Wanted)
    return std::nullopt;
  // Fewer registers never fit fewer blocks: take the largest multiple of 8
  // that still fits Wanted (the original's own count rounded up does).
  uint32_t Budget = roundUp(OriginalRegisters, 8);
  while (Budget + 8 <= MaxRegistersPerThread &&
         residentPerSm(L, Budget + 8, Shape) >= Wanted)
    Budget += 8;
  return Budget;
}

BlockShape declaredShape(const KernelFacts &F) {
  BlockShape Shape;
  if (F.ReqNTid)
    Shape.Threads = (*F.ReqNTid)[0] * (*F.ReqNTid)[1] * (*F.ReqNTid)[2];
  Shape.SharedBytes = F.StaticSharedBytes;
  return Shape;
}

RegisterBudgetFn budgetsFor(const SmLimits &L, RegisterCounts Counts) {
  return [L, Counts = std::move(Counts)](
             std::string_view Kernel,
             const KernelFacts &F) -> std::optional<uint32_t> {
    auto It = Counts.find(Kernel);
    if (It == Counts.end())
      return std::nullopt;
    return registerBudget(L, It->second, declaredShape(F));
  };
}

} // namespace baton
