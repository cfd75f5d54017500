//===- Elf.h - Minimal ELF64 section and symbol reader ----------*- C++ -*-===//
//
// Just enough ELF to find the sections that hold fatbins in host binaries
// and the kernel symbols of a cubin (itself an ELF64 file). Only ELF64
// little-endian is accepted: it is what nvcc emits for every supported host
// and for every cubin. Every offset and size is checked against the buffer.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_FATBIN_ELF_H
#define BATON_FATBIN_ELF_H

#include "baton/Fatbin/Error.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace baton::fatbin {

struct ElfSection {
  std::string Name;
  uint32_t Type = 0;
  uint64_t Offset = 0; ///< In the file; 0 with Size 0 for SHT_NOBITS.
  uint64_t Size = 0;
  uint32_t Link = 0;
};

struct ElfSymbol {
  std::string Name;
  uint8_t Info = 0;
  uint8_t Other = 0;
  uint16_t SectionIndex = 0;
};

/// True when Bytes starts with the ELF magic (of any class).
bool isElf(std::span<const uint8_t> Bytes);

/// Reads the section headers of an ELF64 little-endian file. Offsets in
/// errors are relative to Bytes plus Base (where Bytes sits in File).
std::optional<Error> readElfSections(std::span<const uint8_t> Bytes,
                                     const std::string &File, uint64_t Base,
                                     std::vector<ElfSection> &Out);

/// Reads the symbols of the first SHT_SYMTAB section, names from its linked
/// string table. A file without a symbol table gives no symbols.
std::optional<Error> readElfSymbols(std::span<const uint8_t> Bytes,
                                    const std::vector<ElfSection> &Sections,
                                    const std::string &File, uint64_t Base,
                                    std::vector<ElfSymbol> &Out);

} // namespace baton::fatbin

#endif // BATON_FATBIN_ELF_H
