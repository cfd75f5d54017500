//===- Elf.cpp - Minimal ELF64 section and symbol reader ------------------===//
//
// Field offsets are those of Elf64_Ehdr, Elf64_Shdr and Elf64_Sym in the
// System V gABI. Large section counts use the gABI escape (e_shnum == 0 and
// e_shstrndx == SHN_XINDEX store the real values in section 0).
//
//===----------------------------------------------------------------------===//
#include "baton/Fatbin/Elf.h"

#include "ByteReader.h"

using namespace baton::fatbin;

namespace {
constexpr uint64_t EhdrSize = 64, ShdrSize = 64, SymSize = 24;
constexpr uint32_t SHT_SYMTAB = 2, SHT_NOBITS = 8;
constexpr uint16_t SHN_XINDEX = 0xffff;

Error makeError(const std::string &File, uint64_t Off, std::string Msg) {
  return Error{File, Off, std::move(Msg)};
}
} // namespace

bool baton::fatbin::isElf(std::span<const uint8_t> Bytes) {
  return Bytes.size() >= 4 && Bytes[0] == 0x7f && Bytes[1] == 'E' &&
         Bytes[2] == 'L' && Bytes[3] == 'F';
}

std::optional<Error>
baton::fatbin::readElfSections(std::span<const uint8_t> B,
                               const std::string &File, uint64_t Base,
                               std::vector<ElfSection> &Out) {
  if (B.size() < EhdrSize || !isElf(B))
    return makeError(File, Base, "not an ELF file (or truncated ELF header)");
  if (B[4] != 2 || B[5] != 1)
    return makeError(File, Base + 4,
                     "only ELF64 little-endian files are supported");
  uint64_t ShOff = 0;
  uint16_t ShEntSize = 0, ShNum16 = 0, ShStrNdx16 = 0;
  readLE(B, 0x28, ShOff);
  readLE(B, 0x3a, ShEntSize);
  readLE(B, 0x3c, ShNum16);
  readLE(B, 0x3e, ShStrNdx16);
  if (ShOff == 0)
    return std::nullopt; // No section headers: nothing to find.
  if (ShEntSize != ShdrSize)
    return makeError(File, Base + 0x3a,
                     "unexpected section header size " +
                         std::to_string(ShEntSize));
  if (!inBounds(B.size(), ShOff, ShdrSize))
    return makeError(File, Base + 0x28,
                     "section headers at " + hex(ShOff) +
                         " lie past the end of the file");
  uint64_t ShNum = ShNum16;
  uint32_t ShStrNdx = ShStrNdx16;
  if (ShNum == 0)
    readLE(B, ShOff + 0x20, ShNum); // sh_size of section 0.
  if (ShStrNdx == SHN_XINDEX)
    readLE(B, ShOff + 0x28, ShStrNdx); // sh_link of section 0.
  if (ShNum > (B.size() - ShOff) / ShdrSize)
    return makeError(File, Base + ShOff,
                     std::to_string(ShNum) +
                         " section headers do not fit in the file");

  std::vector<ElfSection> Sections(ShNum);
  std::vector<uint32_t> NameOffsets(ShNum);
  for (uint64_t I = 0; I < ShNum; ++I) {
    uint64_t H = ShOff + I * ShdrSize;
    ElfSection &S = Sections[I];
    readLE(B, H, NameOffsets[I]);
    readLE(B, H + 0x04, S.Type);
    readLE(B, H + 0x18, S.Offset);
    readLE(B, H + 0x20, S.Size);
    readLE(B, H + 0x28, S.Link);
    if (S.Type == SHT_NOBITS) {
      S.Offset = S.Size = 0;
    } else if (!inBounds(B.size(), S.Offset, S.Size)) {
      return makeError(File, Base + H,
                       "section " + std::to_string(I) + " (" + hex(S.Offset) +
                           ", " + std::to_string(S.Size) +
                           " bytes) lies past the end of the file");
    }
  }
  if (ShStrNdx != 0 && ShStrNdx < ShNum) {
    const ElfSection &Str = Sections[ShStrNdx];
    auto Strings = B.subspan(Str.Offset, Str.Size);
    for (uint64_t I = 0; I < ShNum; ++I)
      Sections[I].Name = readCString(Strings, NameOffsets[I]);
  }
  Out = std::move(Sections);
  return std::nullopt;
}

std::optional<Error>
baton::fatbin::readElfSymbols(std::span<const uint8_t> B,
                              const std::vector<ElfSection> &Sections,
                              const std::string &File, uint64_t Base,
                              std::vector<ElfSymbol> &Out) {
  for (const ElfSection &S : Sections) {
    if (S.Type != SHT_SYMTAB)
      continue;
    if (S.Link >= Sections.size())
      return makeError(File, Base + S.Offset,
                       "symbol table links to missing string table " +
                           std::to_string(S.Link));
    const ElfSection &Str = Sections[S.Link];
    auto Strings = B.subspan(Str.Offset, Str.Size);
    for (uint64_t Off = S.Offset; Off + SymSize <= S.Offset + S.Size;
         Off += SymSize) {
      ElfSymbol Sym;
      uint32_t NameOff = 0;
      readLE(B, Off, NameOff);
      readLE(B, Off + 4, Sym.Info);
      readLE(B, Off + 5, Sym.Other);
      readLE(B, Off + 6, Sym.SectionIndex);
      Sym.Name = readCString(Strings, NameOff);
      Out.push_back(std::move(Sym));
    }
    return std::nullopt;
  }
  return std::nullopt;
}
