//===- Scan.cpp - Find the fatbin entries of a file -----------------------===//
#include "baton/Fatbin/Scan.h"

#include "baton/Fatbin/Elf.h"

#include "ByteReader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace baton::fatbin;

std::optional<Error> baton::fatbin::scanFile(std::span<const uint8_t> Bytes,
                                             const std::string &File,
                                             std::vector<Entry> &Out) {
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
    for (const char *Name : FatbinSections)
      if (S.Name == Name)
        if (auto Err =
                parseContainers(Bytes.subspan(S.Offset, S.Size), S.Offset,
                                File, S.Name, ContainerIndex, Out))
          return Err;
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
