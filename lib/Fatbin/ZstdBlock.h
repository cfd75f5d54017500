//===- ZstdBlock.h - Compressed blocks of a zstd frame ----------*- C++ -*-===//
//
// A compressed block (RFC 8878 section 3.1.1.3) is a literals section and a
// sequences section; tables and repeat offsets carry over from block to
// block within a frame, so they live in the frame's state.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_FATBIN_ZSTDBLOCK_H
#define BATON_LIB_FATBIN_ZSTDBLOCK_H

#include "ZstdEntropy.h"

namespace baton::fatbin::zstd {

/// Largest block content and literals section (Block_Maximum_Size).
inline constexpr uint64_t MaxBlockSize = 128 * 1024;

struct FrameState {
  std::span<uint8_t> Out;
  uint64_t OutPos = 0;
  uint64_t FrameStart = 0; ///< Matches may not reach before the frame.
  uint64_t Rep[3] = {1, 4, 8};
  std::optional<HuffmanTable> Huffman;
  std::optional<FseTable> LiteralLengths, Offsets, MatchLengths;
  std::vector<uint8_t> Literals;
};

Failure decodeCompressedBlock(std::span<const uint8_t> In, FrameState &S);

} // namespace baton::fatbin::zstd

#endif // BATON_LIB_FATBIN_ZSTDBLOCK_H
