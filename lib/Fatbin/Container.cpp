//===- Container.cpp - Fatbin containers and their entries ----------------===//
//
// Container header (16 bytes): u32 magic, u16 version (1), u16 header size
// (16: where the first entry starts), u64 size of the entries that follow.
// Entry header (little-endian, offsets from the entry's start):
//   0x00 u16 kind (1 PTX, 2 ELF)      0x02 u16 entry format version
//   0x04 u32 header size (>= 64)      0x08 u64 stored payload size (padded)
//   0x10 u32 compressed size          0x18 u16 minor, 0x1a u16 major version
//   0x1c u32 SM architecture          0x20 u32 name offset, 0x24 u32 length
//   0x28 u64 flags                    0x38 u64 uncompressed size
//   0x40 u32 offset, 0x44 u32 length of an extension block inside the
//        header, when the header is larger than 64 bytes: for PTX the
//        compile options as text (-rdc objects record "--compile-only");
//        for sm_100+ cubins a binary block we check but do not interpret.
// The payload follows the header, and the next entry follows the payload.
//
//===----------------------------------------------------------------------===//
#include "baton/Fatbin/Container.h"

#include "ByteReader.h"

using namespace baton::fatbin;

namespace {
constexpr uint64_t ContainerHeaderSize = 16;
constexpr uint64_t MinEntryHeaderSize = 64;
constexpr uint64_t FlagLz4 = 0x2000, FlagZstd = 0x8000;
/// Older toolkits' own LZ scheme; we have never seen a sample to test on.
constexpr uint64_t FlagLegacyCompress = 0x1000;

struct Parser {
  std::span<const uint8_t> B;
  uint64_t Base;
  const std::string &File;
  const std::string &Section;

  Error error(uint64_t Off, std::string Msg) const {
    return Error{File, Base + Off, std::move(Msg)};
  }

  /// A string stored as [Off, Off+Len) inside the entry at E of size EntryEnd.
  std::optional<Error> readString(uint64_t E, uint64_t EntryEnd, uint64_t Off,
                                  uint64_t Len, const char *What,
                                  std::string &Out) const {
    if (Len == 0)
      return std::nullopt;
    if (!inBounds(EntryEnd - E, Off, Len))
      return error(E, std::string("entry ") + What + " (offset " + hex(Off) +
                          ", " + std::to_string(Len) +
                          " bytes) lies outside the entry");
    Out.assign(reinterpret_cast<const char *>(B.data() + E + Off), Len);
    while (!Out.empty() && Out.back() == '\0')
      Out.pop_back();
    return std::nullopt;
  }

  std::optional<Error> parseEntry(uint64_t E, uint64_t End, Entry &Out,
                                  uint64_t &Next) const {
    if (!inBounds(End, E, MinEntryHeaderSize))
      return error(E, "truncated entry header (" + std::to_string(End - E) +
                          " bytes left in the container, 64 needed)");
    uint32_t HeaderSize = 0, Compressed = 0, Arch = 0, NameOff = 0,
             NameLen = 0;
    uint16_t Minor = 0, Major = 0;
    readLE(B, E, Out.Kind);
    readLE(B, E + 0x04, HeaderSize);
    readLE(B, E + 0x08, Out.PayloadSize);
    readLE(B, E + 0x10, Compressed);
    readLE(B, E + 0x18, Minor);
    readLE(B, E + 0x1a, Major);
    readLE(B, E + 0x1c, Arch);
    readLE(B, E + 0x20, NameOff);
    readLE(B, E + 0x24, NameLen);
    readLE(B, E + 0x28, Out.Flags);
    readLE(B, E + 0x38, Out.UncompressedSize);
    if (HeaderSize < MinEntryHeaderSize || !inBounds(End, E, HeaderSize))
      return error(E + 4, "entry header size " + std::to_string(HeaderSize) +
                              " is below 64 or runs past the container end " +
                              hex(Base + End));
    uint64_t Payload = E + HeaderSize;
    if (!inBounds(End, Payload, Out.PayloadSize))
      return error(E + 8, "entry payload of " +
                              std::to_string(Out.PayloadSize) +
                              " bytes runs past the container end " +
                              hex(Base + End));
    if (Compressed > Out.PayloadSize)
      return error(E + 0x10, "compressed size " + std::to_string(Compressed) +
                                 " exceeds the stored payload size " +
                                 std::to_string(Out.PayloadSize));
    Out.Offset = Base + E;
    Out.Section = Section;
    Out.Arch = Arch;
    Out.CodeMajor = Major;
    Out.CodeMinor = Minor;
    Out.CompressedSize = Compressed;
    Out.PayloadOffset = Base + Payload;
    uint64_t EntryEnd = Payload + Out.PayloadSize;
    if (auto Err = readString(E, EntryEnd, NameOff, NameLen, "name", Out.Name))
      return Err;
    if (HeaderSize >= 0x48) {
      uint32_t OptOff = 0, OptLen = 0;
      readLE(B, E + 0x40, OptOff);
      readLE(B, E + 0x44, OptLen);
      std::string Block;
      if (auto Err = readString(E, E + HeaderSize, OptOff, OptLen,
                                "extension block", Block))
        return Err;
      if (Out.isPTX())
        Out.Options = std::move(Block);
    }
    Next = EntryEnd;
    return std::nullopt;
  }

  std::optional<Error> parseContainer(uint64_t C, unsigned Index,
                                      std::vector<Entry> &Out,
                                      uint64_t &Next) const {
    uint32_t Magic = 0;
    uint16_t Version = 0, HeaderSize = 0;
    uint64_t Size = 0;
    if (!readLE(B, C, Magic) || Magic != ContainerMagic)
      return error(C, "no fatbin container here (bad magic or truncated; "
                      "expected 0xba55ed50)");
    if (!inBounds(B.size(), C, ContainerHeaderSize))
      return error(C, "truncated fatbin container header");
    readLE(B, C + 4, Version);
    readLE(B, C + 6, HeaderSize);
    readLE(B, C + 8, Size);
    if (Version != 1)
      return error(C + 4, "unsupported fatbin container version " +
                              std::to_string(Version));
    if (HeaderSize < ContainerHeaderSize)
      return error(C + 6, "fatbin container header size " +
                              std::to_string(HeaderSize) + " is below 16");
    if (!inBounds(B.size(), C + HeaderSize, Size))
      return error(C + 8, "fatbin container of " + std::to_string(Size) +
                              " bytes runs past the end of its data (" +
                              std::to_string(B.size() - C) + " bytes left)");
    uint64_t End = C + HeaderSize + Size;
    for (uint64_t E = C + HeaderSize; E < End;) {
      Entry En;
      En.Container = Index;
      if (auto Err = parseEntry(E, End, En, E))
        return Err;
      Out.push_back(std::move(En));
    }
    Next = End;
    return std::nullopt;
  }
};
} // namespace

std::optional<Compression> Entry::compression() const {
  if (Flags & FlagLegacyCompress)
    return std::nullopt;
  bool Lz4 = Flags & FlagLz4, Zstd = Flags & FlagZstd;
  if (Lz4 && Zstd)
    return std::nullopt;
  if (Lz4)
    return Compression::LZ4;
  if (Zstd)
    return Compression::Zstd;
  return Compression::None;
}

std::optional<Error> baton::fatbin::parseContainer(
    std::span<const uint8_t> Bytes, uint64_t Offset, uint64_t Base,
    const std::string &File, const std::string &Section,
    unsigned ContainerIndex, std::vector<Entry> &Out, uint64_t &End) {
  Parser P{Bytes, Base, File, Section};
  std::vector<Entry> Entries;
  if (auto Err = P.parseContainer(Offset, ContainerIndex, Entries, End))
    return Err;
  for (Entry &E : Entries) {
    E.Index = unsigned(Out.size());
    Out.push_back(std::move(E));
  }
  return std::nullopt;
}

std::optional<Error> baton::fatbin::parseContainers(
    std::span<const uint8_t> Bytes, uint64_t Base, const std::string &File,
    const std::string &Section, unsigned &ContainerIndex,
    std::vector<Entry> &Out) {
  uint64_t Off = 0;
  while (true) {
    // Linkers align each container; the gap is zero-filled.
    while (Off < Bytes.size() && Bytes[Off] == 0)
      ++Off;
    if (Off == Bytes.size())
      return std::nullopt;
    if (auto Err = parseContainer(Bytes, Off, Base, File, Section,
                                  ContainerIndex, Out, Off))
      return Err;
    ++ContainerIndex;
  }
}
