//===- ZstdFse.cpp - FSE tables of zstd -----------------------------------===//
//
// RFC 8878 section 4.1.1: a table description lists a normalized count per
// symbol (-1 meaning "less than 1": one cell, at the top of the table), with
// a variable number of bits per count and 2-bit repeat flags after zero
// counts. The decoding table spreads each symbol's cells with a fixed step,
// then gives cell u of a symbol the state range that follows from how many
// cells the symbol has.
//
//===----------------------------------------------------------------------===//
#include "ZstdEntropy.h"

#include "ZstdBits.h"

#include <bit>
#include <cstdlib>

using namespace baton::fatbin::zstd;

Failure baton::fatbin::zstd::buildFseTable(std::span<const int16_t> Counts,
                                           unsigned AccuracyLog,
                                           FseTable &Table) {
  const uint32_t Size = uint32_t(1) << AccuracyLog;
  uint32_t Sum = 0;
  for (int16_t C : Counts)
    Sum += C < 0 ? 1 : uint32_t(C);
  if (Sum != Size || Counts.size() > 256)
    return "FSE counts sum to " + std::to_string(Sum) + ", not " +
           std::to_string(Size);
  Table.AccuracyLog = AccuracyLog;
  Table.Cells.assign(Size, FseCell());
  std::vector<uint32_t> Next(Counts.size());
  uint32_t High = Size - 1;
  for (size_t S = 0; S < Counts.size(); ++S) {
    if (Counts[S] == -1) {
      Table.Cells[High--].Symbol = uint8_t(S);
      Next[S] = 1;
    } else {
      Next[S] = uint32_t(Counts[S]);
    }
  }
  const uint32_t Step = (Size >> 1) + (Size >> 3) + 3, Mask = Size - 1;
  uint32_t Pos = 0;
  for (size_t S = 0; S < Counts.size(); ++S)
    for (int I = 0; I < Counts[S]; ++I) {
      Table.Cells[Pos].Symbol = uint8_t(S);
      do
        Pos = (Pos + Step) & Mask;
      while (Pos > High);
    }
  if (Pos != 0)
    return std::string("FSE cells do not spread over the table");
  for (FseCell &Cell : Table.Cells) {
    uint32_t N = Next[Cell.Symbol]++;
    Cell.Bits = uint8_t(AccuracyLog - (std::bit_width(N) - 1));
    Cell.Base = uint16_t((N << Cell.Bits) - Size);
  }
  return std::nullopt;
}

Failure baton::fatbin::zstd::readFseTable(std::span<const uint8_t> In,
                                          unsigned MaxSymbol, unsigned MaxLog,
                                          FseTable &Table, uint64_t &Used) {
  ForwardBits R(In);
  uint32_t V = 0;
  if (!R.read(4, V))
    return std::string("truncated FSE table description");
  unsigned AccuracyLog = V + 5;
  if (AccuracyLog > MaxLog)
    return "FSE accuracy log " + std::to_string(AccuracyLog) +
           " exceeds the maximum " + std::to_string(MaxLog);
  int32_t Remaining = (1 << AccuracyLog) + 1, Threshold = 1 << AccuracyLog;
  unsigned NbBits = AccuracyLog + 1;
  std::vector<int16_t> Counts;
  while (Remaining > 1) {
    if (Counts.size() > MaxSymbol)
      return std::string("FSE table description has too many symbols");
    int32_t Max = 2 * Threshold - 1 - Remaining;
    uint32_t Small = 0, High = 0;
    if (!R.read(NbBits - 1, Small))
      return std::string("truncated FSE table description");
    int32_t Count = int32_t(Small);
    if (Count >= Max) {
      if (!R.read(1, High))
        return std::string("truncated FSE table description");
      Count += int32_t(High << (NbBits - 1));
      if (Count >= Threshold)
        Count -= Max;
    }
    --Count; // Stored as count + 1, so that -1 fits.
    int32_t Cost = Count < 0 ? 1 : Count;
    if (Cost >= Remaining)
      return std::string("FSE counts exceed the table size");
    Remaining -= Cost;
    Counts.push_back(int16_t(Count));
    if (Count == 0) {
      uint32_t Repeat = 3;
      while (Repeat == 3) {
        if (!R.read(2, Repeat))
          return std::string("truncated FSE table description");
        Counts.insert(Counts.end(), Repeat, 0);
        if (Counts.size() > MaxSymbol + 1)
          return std::string("FSE table description has too many symbols");
      }
    }
    while (Remaining < Threshold) {
      --NbBits;
      Threshold >>= 1;
    }
  }
  Used = R.bytesUsed();
  return buildFseTable(Counts, AccuracyLog, Table);
}

FseTable baton::fatbin::zstd::rleFseTable(uint8_t Symbol) {
  FseTable Table;
  Table.Cells.push_back(FseCell{Symbol, 0, 0});
  return Table;
}
