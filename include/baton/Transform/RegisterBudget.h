//===- baton/Transform/RegisterBudget.h - Keep the original's occupancy -*- C++ -*-//
//
// A variant carries a little state across its body (the task pointer, the
// virtual block, a PTB worker's claim), and ptxas may give it a few more
// registers than the original. Past an allocation step that costs resident
// blocks: Triton's vector_add goes from 26 to 36 registers as a PTB variant,
// and an SM then holds 12 workers of 128 threads instead of 16 blocks.
//
// registerBudget() is the most registers per thread a variant may use and
// still fit as many blocks on an SM as the original does; the transform
// writes it as the variants' `.maxnreg` (TransformOptions::RegisterBudget).
// It needs the original's register count, which only ptxas knows: the
// callers that assemble (the Triton integration, baton-recompile,
// `baton-ptx --fit-registers`) read it from a first assembly.
//
// The occupancy model is the CUDA occupancy calculator's: registers are
// allocated per warp in units of 256, in four sub-partitions of the SM's
// register file; blocks are also bounded by warps, blocks and shared memory
// per SM (each block costs the driver's reserved shared memory too).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_REGISTERBUDGET_H
#define BATON_TRANSFORM_REGISTERBUDGET_H

#include "baton/Transform/KernelFacts.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace baton {

/// What bounds the blocks resident on one SM of an architecture.
struct SmLimits {
  uint32_t Registers = 65536;          ///< per SM, and per block
  uint32_t MaxWarps = 64;
  uint32_t MaxBlocks = 32;
  uint64_t SharedBytes = 0;            ///< usable per SM, at most carveout
  uint64_t SharedReservedPerBlock = 0; ///< the driver's per-block reserve
};

/// The limits of sm_<Sm> (70, 75, 80, 86, 87, 89, 90, 100, 103, 120, 121; an
/// `a`/`f` suffix does not change them), or nullopt for one not known.
std::optional<SmLimits> smLimits(uint32_t Sm);

/// A kernel's launch shape as far as it is known.
struct BlockShape {
  /// Threads per block; unknown (a kernel without .reqntid launched with
  /// any block size) counts occupancy in warps instead of blocks.
  std::optional<uint32_t> Threads;
  uint64_t SharedBytes = 0; ///< static + dynamic shared memory per block
};

/// Resident blocks per SM (warps, if the block size is unknown) of a kernel
/// that uses \p Registers registers per thread.
uint32_t residentPerSm(const SmLimits &L, uint32_t Registers,
                       const BlockShape &Shape);

/// The most registers per thread (a multiple of 8, at most 255) with which
/// a variant still fits as many blocks per SM as the original, which uses
/// \p OriginalRegisters; nullopt when any count up to 255 does (no limit is
/// needed) or when the original does not fit at all.
std::optional<uint32_t> registerBudget(const SmLimits &L,
                                       uint32_t OriginalRegisters,
                                       const BlockShape &Shape);

/// The shape a kernel's PTX declares: the threads of its .reqntid, and its
/// static shared memory (dynamic shared memory is not known before launch
/// and counts as none, which can only make the budget tighter).
BlockShape declaredShape(const KernelFacts &F);

/// Original register counts by kernel name, as a first assembly gave them.
using RegisterCounts = std::map<std::string, uint32_t, std::less<>>;

/// The `.maxnreg` of a kernel's variants, by its name and facts, or nullopt
/// for none (TransformOptions::RegisterBudget).
using RegisterBudgetFn =
    std::function<std::optional<uint32_t>(std::string_view, const KernelFacts &)>;

/// The budgets of kernels of these counts on an SM with limits \p L, from
/// each kernel's declared shape; kernels not in \p Counts get none.
RegisterBudgetFn budgetsFor(const SmLimits &L, RegisterCounts Counts);

} // namespace baton

#endif // BATON_TRANSFORM_REGISTERBUDGET_H
