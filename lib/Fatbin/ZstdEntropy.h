//===- ZstdEntropy.h - FSE and Huffman tables of zstd -----------*- C++ -*-===//
//
// The two entropy coders of zstd (RFC 8878 section 4.1): FSE (tANS) codes
// the sequence fields and the Huffman weights, Huffman codes the literals.
// Each table is read from its compact description and expanded into a
// decoding table indexed by the state (FSE) or by the next bits (Huffman).
// Every count, weight and size is validated, since the input is untrusted.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_FATBIN_ZSTDENTROPY_H
#define BATON_LIB_FATBIN_ZSTDENTROPY_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace baton::fatbin::zstd {

using Failure = std::optional<std::string>;

struct FseCell {
  uint8_t Symbol = 0;
  uint8_t Bits = 0;  ///< Bits to read for the next state.
  uint16_t Base = 0; ///< Added to those bits to give the next state.
};

struct FseTable {
  unsigned AccuracyLog = 0;
  std::vector<FseCell> Cells; ///< 1 << AccuracyLog cells.
};

/// Builds the decoding table of normalized counts (-1: "less than one").
Failure buildFseTable(std::span<const int16_t> Counts, unsigned AccuracyLog,
                      FseTable &Table);

/// Reads an FSE table description (section 4.1.1) for symbols up to
/// MaxSymbol with an accuracy log up to MaxLog; Used is its size in bytes.
Failure readFseTable(std::span<const uint8_t> In, unsigned MaxSymbol,
                     unsigned MaxLog, FseTable &Table, uint64_t &Used);

/// A table that always gives Symbol and reads no bits (RLE mode).
FseTable rleFseTable(uint8_t Symbol);

struct HuffmanTable {
  unsigned MaxBits = 0;
  std::vector<uint8_t> Symbols; ///< Indexed by the next MaxBits bits.
  std::vector<uint8_t> Bits;    ///< Length of the code found there.
};

/// Reads a Huffman tree description (section 4.2.1); Used is its size.
Failure readHuffmanTable(std::span<const uint8_t> In, HuffmanTable &Table,
                         uint64_t &Used);

/// Decodes one Huffman-coded stream into exactly Out.size() symbols.
Failure decodeHuffmanStream(std::span<const uint8_t> In,
                            const HuffmanTable &Table, std::span<uint8_t> Out);

} // namespace baton::fatbin::zstd

#endif // BATON_LIB_FATBIN_ZSTDENTROPY_H
