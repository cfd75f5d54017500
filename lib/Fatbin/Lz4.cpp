//===- Lz4.cpp - LZ4 block decoder ----------------------------------------===//
//
// nvcc --compress-mode=speed stores each payload as one raw LZ4 block (no
// LZ4 frame header), with the decompressed size in the entry header. A block
// is a run of sequences: a token (high nibble: literal count, low nibble:
// match length - 4; 15 in either means "add the following bytes until one is
// not 255"), the literals, then a 2-byte little-endian back offset and the
// match. The last sequence stops after its literals. Every read and write is
// checked: corrupt input gives an error, never an out-of-bounds access.
//
//===----------------------------------------------------------------------===//
#include "baton/Fatbin/Decompress.h"

using namespace baton::fatbin;

namespace {
constexpr uint64_t MinMatch = 4;

/// Adds LZ4's extension bytes to a nibble of 15. False on truncation.
bool readLength(std::span<const uint8_t> In, uint64_t &Pos, uint64_t &Len) {
  if (Len != 15)
    return true;
  while (true) {
    if (Pos >= In.size())
      return false;
    uint8_t Byte = In[Pos++];
    Len += Byte;
    if (Byte != 255)
      return true;
  }
}
} // namespace

std::optional<std::pair<uint64_t, std::string>>
baton::fatbin::decodeLz4Block(std::span<const uint8_t> In,
                              std::span<uint8_t> Out) {
  uint64_t Pos = 0, OutPos = 0;
  while (Pos < In.size()) {
    uint64_t TokenPos = Pos;
    uint8_t Token = In[Pos++];
    uint64_t Literals = Token >> 4;
    if (!readLength(In, Pos, Literals))
      return std::make_pair(TokenPos, "LZ4 literal length is truncated");
    if (Literals > In.size() - Pos || Literals > Out.size() - OutPos)
      return std::make_pair(TokenPos, "LZ4 literals run past the end of the "
                                      "input or the output");
    for (uint64_t I = 0; I < Literals; ++I)
      Out[OutPos++] = In[Pos++];
    if (Pos == In.size())
      break; // The last sequence has no match.
    if (In.size() - Pos < 2)
      return std::make_pair(Pos, "LZ4 match offset is truncated");
    uint64_t Offset = In[Pos] | (uint64_t(In[Pos + 1]) << 8);
    Pos += 2;
    if (Offset == 0 || Offset > OutPos)
      return std::make_pair(Pos - 2, "LZ4 match offset " +
                                         std::to_string(Offset) +
                                         " points before the output start");
    uint64_t Match = Token & 15;
    if (!readLength(In, Pos, Match))
      return std::make_pair(TokenPos, "LZ4 match length is truncated");
    Match += MinMatch;
    if (Match > Out.size() - OutPos)
      return std::make_pair(TokenPos, "LZ4 match runs past the declared "
                                      "uncompressed size");
    // Byte by byte: a match may overlap the bytes it is producing.
    for (uint64_t I = 0; I < Match; ++I, ++OutPos)
      Out[OutPos] = Out[OutPos - Offset];
  }
  if (OutPos != Out.size())
    return std::make_pair(Pos, "LZ4 block decodes to " +
                                   std::to_string(OutPos) + " bytes, " +
                                   std::to_string(Out.size()) + " declared");
  return std::nullopt;
}
