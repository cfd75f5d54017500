//===- Scan.h - Find the fatbin entries of a file ---------------*- C++ -*-===//
//
// The entry point for tools: given the bytes of an executable, shared
// library, relocatable object (ELF64) or a raw fatbin, lists every entry of
// every fatbin container in it.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_FATBIN_SCAN_H
#define BATON_FATBIN_SCAN_H

#include "baton/Fatbin/Container.h"
#include "baton/Fatbin/Error.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace baton::fatbin {

/// Sections of host ELF files that hold fatbin containers: .nv_fatbin in
/// linked and whole-program objects, __nv_relfatbin in -rdc objects.
inline constexpr const char *FatbinSections[] = {".nv_fatbin",
                                                 "__nv_relfatbin"};

struct ScanOptions {
  /// Also look for containers in the other PROGBITS sections of an ELF
  /// file. Some libraries (cuFFT keeps hundreds of MB in .ldata) embed
  /// fatbins as plain data and load them themselves. A candidate there is
  /// an 8-byte aligned magic whose whole container parses; anything else is
  /// data that happens to match and is skipped silently.
  bool DataSections = true;
};

/// Lists the entries of File's bytes: first those of the fatbin sections
/// (where malformed containers are errors), then those found in data
/// sections. An ELF file without fatbins gives no entries and no error.
std::optional<Error> scanFile(std::span<const uint8_t> Bytes,
                              const std::string &File, std::vector<Entry> &Out,
                              const ScanOptions &Options = ScanOptions());

/// Reads a whole file.
std::optional<Error> readFile(const std::string &File,
                              std::vector<uint8_t> &Out);

} // namespace baton::fatbin

#endif // BATON_FATBIN_SCAN_H
