//===- Scan.cpp - Find the fatbin entries of a file -----------------------===//
#include "baton/Fatbin/Scan.h"

#include "baton/Fatbin/Elf.h"

#include "ByteReader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace baton::fatbin;

namespace {
constexpr uint32_t SHT_PROGBITS = 1;

bool isFatbinSection(const ElfSection &S) {
  for (const char *Name : FatbinSections)
    if (S.Name == Name)
      return true;
  return false;
}

/// Containers embedded as data: tried at every 8-byte aligned magic (they
/// hold 64-bit fields, so compilers align them), kept when they parse.
void scanDataSection(std::span<const uint8_t> Bytes, const ElfSection &S,
                     const std::string &File, unsigned &ContainerIndex,
                     std::vector<Entry> &Out) {
  auto Data = Bytes.subspan(S.Offset, S.Size);
  for (uint64_t Off = (8 - S.Offset % 8) % 8; Off + 16 <= Data.size();) {
    uint32_t Magic = 0;
    readLE(Data, Off, Magic);
    uint64_t End = 0;
    if (Magic == ContainerMagic &&
        !parseContainer(Data, Off, S.Offset, File, S.Name, ContainerIndex,
                        Out, End)) {
      ++ContainerIndex;
      Off = (S.Offset + End + 7) / 8 * 8 - S.Offset; // Aligned in the file.
    } else {
      Off += 8;
    }
  }
}
} // namespace

std::optional<Error> baton::fatbin::scanFile(std::span<const uint8_t> Bytes,
                                             const std::string &File,
                                             std::vector<Entry> &Out,
                                             const ScanOptions &Options) {
  unsigned ContainerIndex = 0;
  if (!isElf(Bytes)) {
    uint32_t Magic = 0;
    if (!readLE(Bytes, 0, Magic) || Magic != ContainerMagic)
      return Error{File, 0,
                   "neither an ELF file nor a fatbin (magic 0xba55ed50)"};
    return parseContainers(Bytes, 0, File, "", ContainerIndex, Out);
  }
  std::vector<ElfSection> Sections;
  if (auto Err = readElfSections(Bytes, File, 0, Sections))
    return Err;
  for (const ElfSection &S : Sections)
    if (isFatbinSection(S))
      if (auto Err = parseContainers(Bytes.subspan(S.Offset, S.Size), S.Offset,
                                     File, S.Name, ContainerIndex, Out))
        return Err;
  if (Options.DataSections)
    for (const ElfSection &S : Sections)
      if (S.Type == SHT_PROGBITS && !isFatbinSection(S))
        scanDataSection(Bytes, S, File, ContainerIndex, Out);
  return std::nullopt;
}

std::optional<Error> baton::fatbin::readFile(const std::string &File,
                                             std::vector<uint8_t> &Out) {
  std::ifstream In(File, std::ios::binary);
  if (!In)
    return Error{File, 0, std::string("cannot open: ") + std::strerror(errno)};
  Out.assign(std::istreambuf_iterator<char>(In), {});
  if (In.bad())
    return Error{File, 0, "read failed"};
  return std::nullopt;
}
