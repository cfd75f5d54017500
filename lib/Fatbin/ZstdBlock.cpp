//===- ZstdBlock.cpp - Compressed blocks of a zstd frame ------------------===//
//
// Literals (RFC 8878 section 3.1.1.3.1) are raw, one repeated byte, or
// Huffman-coded in one or four streams. Sequences (section 3.1.1.3.2) are
// (literal length, offset, match length) triples coded by three FSE states
// read from one backward bit stream; executing them copies literals and
// back-references into the output. Every length and offset is checked
// against the literals left and the output written so far.
//
//===----------------------------------------------------------------------===//
#include "ZstdBlock.h"

#include "ZstdBits.h"

#include <array>

using namespace baton::fatbin::zstd;

namespace {

/// Baseline and extra bits of each literal length and match length code
/// (section 3.1.1.3.2.1.1) and the predefined distributions of the three
/// codes (section 3.1.1.3.2.2).
struct CodeValue {
  uint32_t Base;
  uint8_t Bits;
};

constexpr auto literalLengthCodes() {
  std::array<CodeValue, 36> C{};
  for (uint32_t I = 0; I < 16; ++I)
    C[I] = {I, 0};
  const CodeValue Rest[] = {{16, 1},    {18, 1},    {20, 1},   {22, 1},
                            {24, 2},    {28, 2},    {32, 3},   {40, 3},
                            {48, 4},    {64, 6},    {128, 7},  {256, 8},
                            {512, 9},   {1024, 10}, {2048, 11}, {4096, 12},
                            {8192, 13}, {16384, 14}, {32768, 15}, {65536, 16}};
  for (unsigned I = 0; I < 20; ++I)
    C[16 + I] = Rest[I];
  return C;
}

constexpr auto matchLengthCodes() {
  std::array<CodeValue, 53> C{};
  for (uint32_t I = 0; I < 32; ++I)
    C[I] = {I + 3, 0};
  const CodeValue Rest[] = {
      {35, 1},    {37, 1},    {39, 1},    {41, 1},     {43, 2},
      {47, 2},    {51, 3},    {59, 3},    {67, 4},     {83, 4},
      {99, 5},    {131, 7},   {259, 8},   {515, 9},    {1027, 10},
      {2051, 11}, {4099, 12}, {8195, 13}, {16387, 14}, {32771, 15},
      {65539, 16}};
  for (unsigned I = 0; I < 21; ++I)
    C[32 + I] = Rest[I];
  return C;
}

constexpr auto LiteralLengthCodes = literalLengthCodes();
constexpr auto MatchLengthCodes = matchLengthCodes();
constexpr unsigned MaxOffsetCode = 31;

constexpr int16_t LiteralLengthDefault[36] = {
    4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2,  2,
    2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
constexpr int16_t MatchLengthDefault[53] = {
    1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
constexpr int16_t OffsetDefault[29] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1,
                                       1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                       1, 1, 1, 1, -1, -1, -1, -1, -1};

uint64_t readLE(std::span<const uint8_t> In, size_t N) {
  uint64_t V = 0;
  for (size_t I = 0; I < N; ++I)
    V |= uint64_t(In[I]) << (8 * I);
  return V;
}

Failure decodeHuffmanLiterals(std::span<const uint8_t> Data, unsigned Streams,
                              FrameState &S) {
  std::span<uint8_t> Out(S.Literals);
  if (Streams == 1)
    return decodeHuffmanStream(Data, *S.Huffman, Out);
  if (Data.size() < 6)
    return std::string("truncated literals jump table");
  uint64_t Sizes[4] = {readLE(Data, 2), readLE(Data.subspan(2), 2),
                       readLE(Data.subspan(4), 2), 0};
  uint64_t First3 = Sizes[0] + Sizes[1] + Sizes[2];
  if (First3 > Data.size() - 6)
    return std::string("literals streams run past the section");
  Sizes[3] = Data.size() - 6 - First3;
  uint64_t Segment = (Out.size() + 3) / 4;
  if (3 * Segment > Out.size())
    return std::string("too few literals for four streams");
  uint64_t In = 6, At = 0;
  for (unsigned I = 0; I < 4; ++I) {
    uint64_t N = I < 3 ? Segment : Out.size() - 3 * Segment;
    if (auto F = decodeHuffmanStream(Data.subspan(In, Sizes[I]), *S.Huffman,
                                     Out.subspan(At, N)))
      return F;
    In += Sizes[I];
    At += N;
  }
  return std::nullopt;
}

Failure readLiterals(std::span<const uint8_t> In, FrameState &S,
                     uint64_t &Used) {
  if (In.empty())
    return std::string("missing literals section");
  unsigned Type = In[0] & 3, Format = (In[0] >> 2) & 3;
  if (Type <= 1) { // Raw or RLE.
    uint64_t Header = Format == 1 ? 2 : Format == 3 ? 3 : 1;
    if (In.size() < Header)
      return std::string("truncated literals header");
    uint64_t V = readLE(In, Header);
    uint64_t Size = Header == 1 ? V >> 3 : V >> 4;
    if (Size > MaxBlockSize)
      return std::string("literals exceed the block size");
    uint64_t Stored = Type == 0 ? Size : 1;
    if (Stored > In.size() - Header)
      return std::string("literals run past the block");
    if (Type == 0)
      S.Literals.assign(In.begin() + Header, In.begin() + Header + Size);
    else
      S.Literals.assign(Size, In[Header]);
    Used = Header + Stored;
    return std::nullopt;
  }
  unsigned Streams = Format == 0 ? 1 : 4;
  uint64_t Header = Format <= 1 ? 3 : Format == 2 ? 4 : 5;
  unsigned SizeBits = Header == 3 ? 10 : Header == 4 ? 14 : 18;
  if (In.size() < Header)
    return std::string("truncated literals header");
  uint64_t V = readLE(In, Header), Mask = (uint64_t(1) << SizeBits) - 1;
  uint64_t Size = (V >> 4) & Mask, Compressed = (V >> (4 + SizeBits)) & Mask;
  if (Size > MaxBlockSize)
    return std::string("literals exceed the block size");
  if (Compressed > In.size() - Header)
    return std::string("compressed literals run past the block");
  auto Data = In.subspan(Header, Compressed);
  if (Type == 2) { // A new Huffman table precedes the streams.
    HuffmanTable Table;
    uint64_t TableSize = 0;
    if (auto F = readHuffmanTable(Data, Table, TableSize))
      return F;
    S.Huffman = std::move(Table);
    Data = Data.subspan(TableSize);
  } else if (!S.Huffman) {
    return std::string("treeless literals without a previous Huffman table");
  }
  S.Literals.assign(Size, 0);
  Used = Header + Compressed;
  return decodeHuffmanLiterals(Data, Streams, S);
}

/// One of the three sequence tables, per its compression mode.
Failure readSequenceTable(std::span<const uint8_t> In, uint64_t &Pos,
                          unsigned Mode, std::span<const int16_t> Default,
                          unsigned DefaultLog, unsigned MaxSymbol,
                          unsigned MaxLog, std::optional<FseTable> &Table) {
  switch (Mode) {
  case 0: { // Predefined.
    FseTable T;
    if (auto F = buildFseTable(Default, DefaultLog, T))
      return F;
    Table = std::move(T);
    return std::nullopt;
  }
  case 1: // RLE: one symbol.
    if (Pos >= In.size())
      return std::string("truncated RLE sequence table");
    if (In[Pos] > MaxSymbol)
      return std::string("RLE sequence symbol out of range");
    Table = rleFseTable(In[Pos++]);
    return std::nullopt;
  case 2: {
    FseTable T;
    uint64_t Used = 0;
    if (auto F = readFseTable(In.subspan(Pos), MaxSymbol, MaxLog, T, Used))
      return F;
    Pos += Used;
    Table = std::move(T);
    return std::nullopt;
  }
  default: // Repeat the previous block's table.
    if (!Table)
      return std::string("repeated sequence table without a previous one");
    return std::nullopt;
  }
}

/// The offset of a sequence from its offset value and the repeat offsets
/// (section 3.1.1.5), updating them.
Failure resolveOffset(uint64_t Value, uint64_t LiteralLength, uint64_t Rep[3],
                      uint64_t &Offset) {
  if (Value > 3) {
    Offset = Value - 3;
    Rep[2] = Rep[1];
    Rep[1] = Rep[0];
    Rep[0] = Offset;
    return std::nullopt;
  }
  uint64_t Index = Value + (LiteralLength == 0 ? 1 : 0);
  if (Index == 1) {
    Offset = Rep[0];
    return std::nullopt;
  }
  Offset = Index == 4 ? Rep[0] - 1 : Rep[Index - 1];
  if (Offset == 0)
    return std::string("repeat offset 0");
  if (Index != 2)
    Rep[2] = Rep[1];
  Rep[1] = Rep[0];
  Rep[0] = Offset;
  return std::nullopt;
}

Failure copyLiterals(FrameState &S, uint64_t &LitPos, uint64_t N) {
  if (N > S.Literals.size() - LitPos)
    return std::string("sequence uses more literals than decoded");
  if (N > S.Out.size() - S.OutPos)
    return std::string("output exceeds the declared size");
  for (uint64_t I = 0; I < N; ++I)
    S.Out[S.OutPos++] = S.Literals[LitPos++];
  return std::nullopt;
}

Failure decodeSequences(std::span<const uint8_t> In, FrameState &S) {
  uint64_t LitPos = 0;
  if (In.empty())
    return std::string("missing sequences section");
  uint64_t Count = In[0], Pos = 1;
  if (Count >= 128) {
    uint64_t Extra = Count == 255 ? 2 : 1;
    if (In.size() < 1 + Extra)
      return std::string("truncated sequences header");
    Count = Count == 255 ? readLE(In.subspan(1), 2) + 0x7f00
                         : ((Count - 128) << 8) + In[1];
    Pos += Extra;
  }
  if (Count == 0) {
    if (Pos != In.size())
      return std::string("bytes after an empty sequences section");
    return copyLiterals(S, LitPos, S.Literals.size());
  }
  if (Pos >= In.size())
    return std::string("truncated sequences header");
  uint8_t Modes = In[Pos++];
  if (Modes & 3)
    return std::string("reserved bits set in the sequence modes");
  if (auto F = readSequenceTable(In, Pos, Modes >> 6, LiteralLengthDefault, 6,
                                 35, 9, S.LiteralLengths))
    return F;
  if (auto F = readSequenceTable(In, Pos, (Modes >> 4) & 3, OffsetDefault, 5,
                                 MaxOffsetCode, 8, S.Offsets))
    return F;
  if (auto F = readSequenceTable(In, Pos, (Modes >> 2) & 3, MatchLengthDefault,
                                 6, 52, 9, S.MatchLengths))
    return F;

  BackwardBits R;
  if (Pos >= In.size() || !R.init(In.subspan(Pos)))
    return std::string("sequences stream is empty or unterminated");
  const FseTable &LL = *S.LiteralLengths, &OF = *S.Offsets,
                 &ML = *S.MatchLengths;
  uint64_t LLState = R.read(LL.AccuracyLog), OFState = R.read(OF.AccuracyLog),
           MLState = R.read(ML.AccuracyLog);
  for (uint64_t I = 0; I < Count; ++I) {
    const FseCell &LLCell = LL.Cells[LLState], &OFCell = OF.Cells[OFState],
                  &MLCell = ML.Cells[MLState];
    const CodeValue &LLCode = LiteralLengthCodes[LLCell.Symbol];
    const CodeValue &MLCode = MatchLengthCodes[MLCell.Symbol];
    uint64_t OffsetValue =
        (uint64_t(1) << OFCell.Symbol) + R.read(OFCell.Symbol);
    uint64_t MatchLength = MLCode.Base + R.read(MLCode.Bits);
    uint64_t LiteralLength = LLCode.Base + R.read(LLCode.Bits);
    if (I + 1 < Count) {
      LLState = LLCell.Base + R.read(LLCell.Bits);
      MLState = MLCell.Base + R.read(MLCell.Bits);
      OFState = OFCell.Base + R.read(OFCell.Bits);
    }
    if (R.overflowed())
      return std::string("sequences stream ends early");
    uint64_t Offset = 0;
    if (auto F = resolveOffset(OffsetValue, LiteralLength, S.Rep, Offset))
      return F;
    if (auto F = copyLiterals(S, LitPos, LiteralLength))
      return F;
    if (Offset == 0 || Offset > S.OutPos - S.FrameStart)
      return "match offset " + std::to_string(Offset) +
             " points before the start of the output";
    if (MatchLength > S.Out.size() - S.OutPos)
      return std::string("output exceeds the declared size");
    // Byte by byte: a match may overlap the bytes it is producing.
    for (uint64_t J = 0; J < MatchLength; ++J, ++S.OutPos)
      S.Out[S.OutPos] = S.Out[S.OutPos - Offset];
  }
  if (!R.finished())
    return std::string("sequences stream has bits left over");
  return copyLiterals(S, LitPos, S.Literals.size() - LitPos);
}

} // namespace

Failure baton::fatbin::zstd::decodeCompressedBlock(std::span<const uint8_t> In,
                                                   FrameState &S) {
  uint64_t Used = 0;
  if (auto F = readLiterals(In, S, Used))
    return F;
  return decodeSequences(In.subspan(Used), S);
}
