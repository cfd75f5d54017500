//===- Decompress.h - Payloads of fatbin entries ----------------*- C++ -*-===//
//
// nvcc 13 compresses device code by default: zstd frames for
// --compress-mode=default/size/balance, raw LZ4 blocks (no frame) for
// --compress-mode=speed. Both decoders are ours (Lz4.cpp, Zstd*.cpp), so
// reading a fatbin needs no compression library.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_FATBIN_DECOMPRESS_H
#define BATON_FATBIN_DECOMPRESS_H

#include "baton/Fatbin/Container.h"
#include "baton/Fatbin/Error.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace baton::fatbin {

/// Largest payload we agree to inflate: a hostile size field must not make
/// us allocate the address space.
inline constexpr uint64_t MaxUncompressedSize = uint64_t(1) << 30;

/// Decodes one LZ4 block into exactly Out.size() bytes. Returns a message
/// and the offset within In where decoding failed.
std::optional<std::pair<uint64_t, std::string>>
decodeLz4Block(std::span<const uint8_t> In, std::span<uint8_t> Out);

/// Decodes one zstd frame into exactly Out.size() bytes.
std::optional<std::string> decodeZstd(std::span<const uint8_t> In,
                                      std::span<uint8_t> Out);

/// The payload of E as stored code: decompressed, and for PTX with the
/// trailing NUL padding removed. FileBytes is the whole input file.
std::optional<Error> decodePayload(std::span<const uint8_t> FileBytes,
                                   const Entry &E, const std::string &File,
                                   std::vector<uint8_t> &Out);

} // namespace baton::fatbin

#endif // BATON_FATBIN_DECOMPRESS_H
