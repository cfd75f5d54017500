//===- Decompress.cpp - Payloads of fatbin entries ------------------------===//
#include "baton/Fatbin/Decompress.h"

#include "ByteReader.h"

using namespace baton::fatbin;

std::optional<Error>
baton::fatbin::decodePayload(std::span<const uint8_t> FileBytes,
                             const Entry &E, const std::string &File,
                             std::vector<uint8_t> &Out) {
  auto error = [&](uint64_t Off, std::string Msg) {
    return Error{File, Off,
                 "entry " + std::to_string(E.Index) + ": " + std::move(Msg)};
  };
  if (!inBounds(FileBytes.size(), E.PayloadOffset, E.PayloadSize))
    return error(E.PayloadOffset, "payload lies past the end of the file");
  auto Stored = FileBytes.subspan(E.PayloadOffset, E.PayloadSize);
  std::optional<Compression> C = E.compression();
  if (!C)
    return error(E.Offset + 0x28, "unsupported compression flags " +
                                      hex(E.Flags) + ": payload not decoded");
  if (*C == Compression::None) {
    Out.assign(Stored.begin(), Stored.end());
  } else {
    if (E.UncompressedSize > MaxUncompressedSize)
      return error(E.Offset + 0x38,
                   "uncompressed size " + std::to_string(E.UncompressedSize) +
                       " exceeds the limit of " +
                       std::to_string(MaxUncompressedSize) + " bytes");
    // nvcc 13 always records the compressed size; should it be 0, the
    // stored size (padding included) is the bound.
    if (E.CompressedSize > Stored.size())
      return error(E.Offset + 0x10, "compressed size exceeds the payload");
    auto In = Stored.first(E.CompressedSize ? E.CompressedSize : Stored.size());
    Out.assign(E.UncompressedSize, 0);
    if (*C == Compression::LZ4) {
      if (auto Err = decodeLz4Block(In, Out))
        return error(E.PayloadOffset + Err->first, Err->second);
    } else if (auto Err = decodeZstd(In, Out)) {
      return error(E.PayloadOffset, *Err);
    }
  }
  // PTX is stored as a C string padded with NULs to the entry's alignment.
  if (E.isPTX())
    while (!Out.empty() && Out.back() == 0)
      Out.pop_back();
  return std::nullopt;
}
