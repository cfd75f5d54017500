//===- ZstdHuffman.cpp - Huffman tables of zstd literals ------------------===//
//
// RFC 8878 section 4.2.1: a Huffman tree is described by a weight per symbol
// (code length = MaxBits + 1 - weight), either 4 bits each or FSE-coded with
// two interleaved states; the last symbol's weight is implied by the others,
// since the weights must fill a power of two. Codes are assigned from the
// lowest weight up, so the decoding table, indexed by the next MaxBits bits,
// holds each symbol in a run of 2^(weight-1) cells.
//
//===----------------------------------------------------------------------===//
#include "ZstdEntropy.h"

#include "ZstdBits.h"

#include <bit>

using namespace baton::fatbin::zstd;

namespace {
constexpr unsigned MaxHuffmanBits = 11;
constexpr unsigned MaxWeightLog = 6;
constexpr size_t MaxWeights = 255;

Failure readFseWeights(std::span<const uint8_t> In,
                       std::vector<uint8_t> &Weights) {
  FseTable Table;
  uint64_t Used = 0;
  if (auto F = readFseTable(In, 255, MaxWeightLog, Table, Used))
    return F;
  BackwardBits R;
  if (Used >= In.size() || !R.init(In.subspan(Used)))
    return std::string("Huffman weights stream is empty or unterminated");
  const unsigned Log = Table.AccuracyLog;
  uint32_t State[2] = {uint32_t(R.read(Log)), uint32_t(R.read(Log))};
  // Both states share the table; when the stream runs out, the other
  // state's symbol is the last weight.
  for (unsigned Turn = 0;; Turn ^= 1) {
    if (Weights.size() >= MaxWeights)
      return std::string("too many Huffman weights");
    const FseCell &Cell = Table.Cells[State[Turn]];
    Weights.push_back(Cell.Symbol);
    State[Turn] = Cell.Base + uint32_t(R.read(Cell.Bits));
    if (R.overflowed()) {
      Weights.push_back(Table.Cells[State[Turn ^ 1]].Symbol);
      return std::nullopt;
    }
  }
}
} // namespace

Failure baton::fatbin::zstd::readHuffmanTable(std::span<const uint8_t> In,
                                              HuffmanTable &Table,
                                              uint64_t &Used) {
  if (In.empty())
    return std::string("missing Huffman tree description");
  std::vector<uint8_t> Weights;
  uint8_t Header = In[0];
  if (Header < 128) {
    if (Header == 0 || Header > In.size() - 1)
      return std::string("Huffman weights run past the literals");
    if (auto F = readFseWeights(In.subspan(1, Header), Weights))
      return F;
    Used = 1 + uint64_t(Header);
  } else {
    size_t N = Header - 127, Bytes = (N + 1) / 2;
    if (Bytes > In.size() - 1)
      return std::string("Huffman weights run past the literals");
    for (size_t I = 0; I < N; ++I)
      Weights.push_back(I % 2 ? In[1 + I / 2] & 15 : In[1 + I / 2] >> 4);
    Used = 1 + Bytes;
  }
  if (Weights.size() > MaxWeights)
    return std::string("too many Huffman weights");

  uint32_t Total = 0;
  for (uint8_t W : Weights) {
    if (W > MaxHuffmanBits)
      return "Huffman weight " + std::to_string(W) + " is too large";
    Total += W ? uint32_t(1) << (W - 1) : 0;
  }
  if (Total == 0)
    return std::string("Huffman weights are all zero");
  unsigned MaxBits = std::bit_width(Total);
  if (MaxBits > MaxHuffmanBits)
    return std::string("Huffman codes longer than 11 bits");
  uint32_t Left = (uint32_t(1) << MaxBits) - Total;
  if (!std::has_single_bit(Left))
    return std::string("Huffman weights do not complete a power of two");
  Weights.push_back(uint8_t(std::bit_width(Left)));

  std::vector<uint32_t> Start(MaxBits + 2, 0);
  for (uint8_t W : Weights)
    if (W)
      Start[W + 1] += uint32_t(1) << (W - 1);
  for (unsigned W = 1; W <= MaxBits; ++W)
    Start[W + 1] += Start[W];
  Table.MaxBits = MaxBits;
  Table.Symbols.assign(size_t(1) << MaxBits, 0);
  Table.Bits.assign(size_t(1) << MaxBits, 0);
  for (size_t S = 0; S < Weights.size(); ++S) {
    uint8_t W = Weights[S];
    if (!W)
      continue;
    for (uint32_t I = 0; I < (uint32_t(1) << (W - 1)); ++I) {
      Table.Symbols[Start[W] + I] = uint8_t(S);
      Table.Bits[Start[W] + I] = uint8_t(MaxBits + 1 - W);
    }
    Start[W] += uint32_t(1) << (W - 1);
  }
  return std::nullopt;
}

Failure baton::fatbin::zstd::decodeHuffmanStream(std::span<const uint8_t> In,
                                                 const HuffmanTable &Table,
                                                 std::span<uint8_t> Out) {
  BackwardBits R;
  if (!R.init(In))
    return std::string("Huffman stream is empty or unterminated");
  for (uint8_t &Byte : Out) {
    uint64_t Index = R.peek(Table.MaxBits);
    Byte = Table.Symbols[Index];
    R.skip(Table.Bits[Index]);
  }
  if (!R.finished())
    return std::string("Huffman stream does not end with its last symbol");
  return std::nullopt;
}
