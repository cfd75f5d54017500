//===- LaunchMath.h - Launch validation and sizing, free of CUDA calls -*- C++ -*-===//
//
// The arithmetic of a launch that needs no device: checking a configuration,
// counting virtual blocks, and sizing PTB worker pools and slices from
// occupancy figures. Kept apart so unit tests cover it on machines with no
// GPU and no driver.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_LAUNCHMATH_H
#define BATON_LIB_RUNTIME_LAUNCHMATH_H

#include "baton/Runtime.h"

#include <cstdint>
#include <string_view>

namespace baton::detail {

/// Blocks in \p Grid, as a 64-bit count (a CUDA grid can exceed 2^32).
uint64_t virtualBlockCount(const Dim3 &Grid);

/// Throws Error(InvalidArgument) naming \p Kernel if \p Config cannot be
/// launched: an empty grid or block, more than 1024 threads per block, a grid
/// of BATON_MAX_VIRTUAL_BLOCKS blocks or more for a variant (the 32-bit
/// cursor would wrap), or a PTB worker count with no work to share.
void validateLaunch(const LaunchConfig &Config, std::string_view Kernel);

/// Blocks that can be resident at once on the whole device, capped at
/// \p VirtualBlocks (more workers or a wider slice would only idle). Throws
/// InvalidArgument naming \p Kernel when not even one block fits an SM.
uint32_t coResidentWidth(int BlocksPerSm, int MultiprocessorCount,
                         uint64_t VirtualBlocks, std::string_view Kernel);

/// The claim_chunk a PTB launch of \p End virtual blocks writes for a
/// requested \p Chunk: at least 1, at most BATON_MAX_CLAIM_CHUNK, and low
/// enough that End workers (no launch has more) each overshooting `end` by
/// one claim cannot wrap the 32-bit cursor.
uint32_t claimChunk(uint32_t Chunk, uint32_t End);

/// The first slice [Begin, Begin + width) of a slice launch, clipped to End.
inline uint32_t sliceWidth(uint32_t Begin, uint32_t End, uint32_t SliceBlocks) {
  return End - Begin < SliceBlocks ? End - Begin : SliceBlocks;
}

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_LAUNCHMATH_H
