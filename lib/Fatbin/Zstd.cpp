//===- Zstd.cpp - zstd frames ---------------------------------------------===//
//
// nvcc's default compression (and --compress-mode=size/balance) stores each
// payload as one zstd frame (RFC 8878; magic 28 b5 2f fd). This decodes
// frames without dictionaries, the only kind nvcc writes: the frame header,
// then raw, RLE and compressed blocks (ZstdBlock.cpp) into an output whose
// size the fatbin entry declares. Skippable frames are skipped. The optional
// content checksum is not verified: the output size and the exact ending of
// every entropy-coded stream already catch truncation and corruption.
//
//===----------------------------------------------------------------------===//
#include "baton/Fatbin/Decompress.h"

#include "ZstdBlock.h"

#include <algorithm>

using namespace baton::fatbin;
using namespace baton::fatbin::zstd;

namespace {
constexpr uint32_t FrameMagic = 0xFD2FB528;
constexpr uint32_t SkippableMagicMask = 0xFFFFFFF0, SkippableMagic = 0x184D2A50;

/// Reads N little-endian bytes at Pos; false past the end.
bool take(std::span<const uint8_t> In, uint64_t &Pos, unsigned N,
          uint64_t &Value) {
  if (N > In.size() - Pos)
    return false;
  Value = 0;
  for (unsigned I = 0; I < N; ++I)
    Value |= uint64_t(In[Pos + I]) << (8 * I);
  Pos += N;
  return true;
}

Failure at(uint64_t Pos, std::string Msg) {
  return "zstd: byte " + std::to_string(Pos) + ": " + Msg;
}

Failure decodeFrame(std::span<const uint8_t> In, uint64_t &Pos,
                    std::span<uint8_t> Out, uint64_t &OutPos) {
  uint64_t Descriptor = 0;
  if (!take(In, Pos, 1, Descriptor))
    return at(Pos, "truncated frame header");
  unsigned SizeFlag = Descriptor >> 6, DictFlag = Descriptor & 3;
  bool SingleSegment = Descriptor & 0x20, Checksum = Descriptor & 0x04;
  if (Descriptor & 0x08)
    return at(Pos - 1, "reserved frame header bit set");
  uint64_t Ignored = 0, DictId = 0, ContentSize = 0;
  if (!SingleSegment && !take(In, Pos, 1, Ignored)) // Window descriptor.
    return at(Pos, "truncated frame header");
  const unsigned DictBytes[] = {0, 1, 2, 4};
  if (!take(In, Pos, DictBytes[DictFlag], DictId))
    return at(Pos, "truncated frame header");
  if (DictId != 0)
    return at(Pos, "frame needs dictionary " + std::to_string(DictId));
  const unsigned SizeBytes[] = {SingleSegment ? 1u : 0u, 2, 4, 8};
  if (!take(In, Pos, SizeBytes[SizeFlag], ContentSize))
    return at(Pos, "truncated frame header");
  if (SizeBytes[SizeFlag] == 2)
    ContentSize += 256;
  bool HaveSize = SizeBytes[SizeFlag] != 0;

  FrameState S;
  S.Out = Out;
  S.OutPos = S.FrameStart = OutPos;
  for (bool Last = false; !Last;) {
    uint64_t Header = 0, BlockPos = Pos;
    if (!take(In, Pos, 3, Header))
      return at(Pos, "truncated block header");
    Last = Header & 1;
    unsigned Type = (Header >> 1) & 3;
    uint64_t Size = Header >> 3;
    if (Size > MaxBlockSize)
      return at(BlockPos, "block larger than 128 KiB");
    uint64_t Stored = Type == 1 ? 1 : Size;
    if (Type == 3)
      return at(BlockPos, "reserved block type");
    if (Stored > In.size() - Pos)
      return at(BlockPos, "block runs past the end of the input");
    if (Type != 2 && Size > Out.size() - S.OutPos)
      return at(BlockPos, "output exceeds the declared size");
    if (Type == 0)
      std::copy_n(In.begin() + Pos, Size, Out.begin() + S.OutPos);
    else if (Type == 1)
      std::fill_n(Out.begin() + S.OutPos, Size, In[Pos]);
    else if (auto F = decodeCompressedBlock(In.subspan(Pos, Size), S))
      return at(BlockPos, "compressed block: " + *F);
    if (Type != 2)
      S.OutPos += Size;
    Pos += Stored;
  }
  if (Checksum && !take(In, Pos, 4, Ignored))
    return at(Pos, "truncated content checksum");
  if (HaveSize && S.OutPos - OutPos != ContentSize)
    return at(Pos, "frame decodes to " + std::to_string(S.OutPos - OutPos) +
                       " bytes, its header says " +
                       std::to_string(ContentSize));
  OutPos = S.OutPos;
  return std::nullopt;
}
} // namespace

std::optional<std::string>
baton::fatbin::decodeZstd(std::span<const uint8_t> In, std::span<uint8_t> Out) {
  uint64_t Pos = 0, OutPos = 0;
  while (Pos < In.size()) {
    uint64_t Magic = 0, FrameAt = Pos;
    if (!take(In, Pos, 4, Magic))
      return at(FrameAt, "truncated frame magic");
    if ((Magic & SkippableMagicMask) == SkippableMagic) {
      uint64_t Size = 0;
      if (!take(In, Pos, 4, Size) || Size > In.size() - Pos)
        return at(FrameAt, "truncated skippable frame");
      Pos += Size;
      continue;
    }
    if (Magic != FrameMagic)
      return at(FrameAt, "not a zstd frame (magic 28 b5 2f fd expected)");
    if (auto F = decodeFrame(In, Pos, Out, OutPos))
      return F;
  }
  if (OutPos != Out.size())
    return "zstd: decodes to " + std::to_string(OutPos) + " bytes, " +
           std::to_string(Out.size()) + " declared";
  return std::nullopt;
}
