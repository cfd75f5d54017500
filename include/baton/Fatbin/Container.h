//===- Container.h - Fatbin containers and their entries --------*- C++ -*-===//
//
// A fatbin container (what `nvcc -fatbin` writes and what host binaries embed
// in .nv_fatbin / __nv_relfatbin) is a 16-byte header, magic 0xBA55ED50, then
// entries laid end to end: each an entry header (its own size is stored in
// it, 64 bytes or more) followed by its payload, PTX text or a cubin,
// possibly compressed. Several containers may follow one another in a
// section, with zero padding between them. The layout is not documented by
// NVIDIA; docs/offline.md lists the fields we rely on and how they were
// established.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_FATBIN_CONTAINER_H
#define BATON_FATBIN_CONTAINER_H

#include "baton/Fatbin/Error.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace baton::fatbin {

inline constexpr uint32_t ContainerMagic = 0xBA55ED50;

enum class EntryKind : uint16_t { PTX = 1, ELF = 2 };

/// Payload encodings, from the entry flags (nvcc --compress-mode: "speed"
/// gives LZ4, the others zstd).
enum class Compression { None, LZ4, Zstd };

struct Entry {
  unsigned Index = 0;     ///< Running index over the whole input file.
  unsigned Container = 0; ///< Index of its container in the input file.
  std::string Section;    ///< ELF section it came from; empty for a raw fatbin.
  uint64_t Offset = 0;    ///< File offset of the entry header.
  uint16_t Kind = 0;      ///< EntryKind value, or another kind we keep opaque.
  unsigned Arch = 0;      ///< SM number: 90 for sm_90 / compute_90.
  unsigned CodeMajor = 0, CodeMinor = 0; ///< PTX ISA or cubin version.
  uint64_t Flags = 0;
  uint64_t PayloadOffset = 0;    ///< File offset of the stored payload.
  uint64_t PayloadSize = 0;      ///< Stored bytes, padding included.
  uint64_t CompressedSize = 0;   ///< Bytes of compressed data (0: none).
  uint64_t UncompressedSize = 0; ///< Size after decompression (0: none).
  std::string Name;    ///< Identifier string, when the entry has one.
  std::string Options; ///< Compile options string, when the entry has one.

  bool isPTX() const { return Kind == uint16_t(EntryKind::PTX); }
  bool isELF() const { return Kind == uint16_t(EntryKind::ELF); }
  /// Nothing when the flags name a compression we do not know.
  std::optional<Compression> compression() const;
};

/// Parses the one container at Offset in Bytes (which sit at file offset
/// Base) and appends its entries to Out only if all of them parse; End is
/// the offset in Bytes just past it.
std::optional<Error> parseContainer(std::span<const uint8_t> Bytes,
                                    uint64_t Offset, uint64_t Base,
                                    const std::string &File,
                                    const std::string &Section,
                                    unsigned ContainerIndex,
                                    std::vector<Entry> &Out, uint64_t &End);

/// Parses the containers that fill Bytes (which sit at file offset Base) and
/// appends their entries to Out. ContainerIndex counts containers across
/// calls, so that one file with several sections numbers them all.
std::optional<Error> parseContainers(std::span<const uint8_t> Bytes,
                                     uint64_t Base, const std::string &File,
                                     const std::string &Section,
                                     unsigned &ContainerIndex,
                                     std::vector<Entry> &Out);

} // namespace baton::fatbin

#endif // BATON_FATBIN_CONTAINER_H
