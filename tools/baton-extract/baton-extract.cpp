//===- baton-extract.cpp - Extract the PTX embedded in fatbins ------------===//
//
// First step of offline recompilation (docs/offline.md): lists the fatbin
// entries of an executable, shared library, object or .fatbin file, and
// writes each PTX entry to DIR/<stem>.<index>.sm_XX.ptx for baton-ptx.
// Entries that carry only SASS are reported with their kernels, since those
// kernels cannot get Baton variants.
//
//===----------------------------------------------------------------------===//
#include "baton/Fatbin/Cubin.h"
#include "baton/Fatbin/Decompress.h"
#include "baton/Fatbin/Scan.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

using namespace baton::fatbin;

namespace {

/// Kinds other than PTX and ELF (cuFFT ships many of kind 8) are shown by
/// number: we have no documentation to name them by.
std::string kindName(const Entry &E) {
  return E.isPTX() ? "ptx" : E.isELF() ? "elf" : "kind" + std::to_string(E.Kind);
}

std::string compressionName(const Entry &E) {
  std::optional<Compression> C = E.compression();
  if (!C)
    return "unknown-compression";
  switch (*C) {
  case Compression::None:
    return "uncompressed";
  case Compression::LZ4:
    return "lz4";
  case Compression::Zstd:
    return "zstd";
  }
  return "unknown-compression";
}

void listEntry(const Entry &E) {
  std::cout << "entry " << E.Index << ": container " << E.Container << " "
            << kindName(E) << " sm_" << E.Arch << " " << compressionName(E)
            << " stored " << E.PayloadSize << " bytes";
  if (E.compression() != Compression::None)
    std::cout << ", " << E.UncompressedSize << " uncompressed";
  if (!E.Section.empty())
    std::cout << " section " << E.Section;
  if (!E.Name.empty())
    std::cout << " name \"" << E.Name << "\"";
  if (!E.Options.empty())
    std::cout << " options \"" << E.Options << "\"";
  std::cout << "\n";
}

bool writeFile(const std::filesystem::path &Path,
               const std::vector<uint8_t> &Data) {
  std::ofstream Out(Path, std::ios::binary);
  Out.write(reinterpret_cast<const char *>(Data.data()), Data.size());
  Out.close();
  if (!Out) {
    std::cerr << Path.string() << ": error: cannot write the file\n";
    return false;
  }
  return true;
}

/// Reports the kernels of every ELF entry of a container without PTX: no
/// driver can JIT them for another GPU, and baton-ptx cannot transform them.
void reportSassOnly(const std::vector<uint8_t> &Bytes,
                    const std::vector<Entry> &Entries, const std::string &File,
                    unsigned &Count) {
  std::set<unsigned> WithPtx;
  for (const Entry &E : Entries)
    if (E.isPTX())
      WithPtx.insert(E.Container);
  for (const Entry &E : Entries) {
    if (!E.isELF() || WithPtx.count(E.Container))
      continue;
    ++Count;
    std::cout << "entry " << E.Index << ": sm_" << E.Arch
              << " SASS only, no PTX; kernels:";
    std::vector<uint8_t> Cubin;
    std::vector<std::string> Kernels;
    std::optional<Error> Err = decodePayload(Bytes, E, File, Cubin);
    if (!Err)
      Err = cubinKernels(Cubin, File + " (entry " + std::to_string(E.Index) +
                                    " cubin)",
                         0, Kernels);
    for (const std::string &K : Kernels)
      std::cout << " " << K;
    if (Kernels.empty())
      std::cout << " (none)";
    std::cout << "\n";
    if (Err)
      std::cerr << Err->str() << "\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  CLI::App App{"baton-extract: list the fatbin entries of an executable, "
               "shared library, object or .fatbin file and extract the PTX "
               "they embed (see docs/offline.md).",
               "baton-extract"};
  std::string Input, OutDir;
  bool List = false, FatbinSectionsOnly = false;
  App.add_option("input", Input, "ELF64 file or raw fatbin")->required();
  App.add_flag("--list", List, "Print one line per fatbin entry");
  App.add_option("-o,--output-dir", OutDir,
                 "Write each PTX entry as DIR/<stem>.<index>.sm_XX.ptx");
  App.add_flag("--fatbin-sections-only", FatbinSectionsOnly,
               "Read only .nv_fatbin and __nv_relfatbin, not fatbins "
               "embedded as data in other sections");
  App.footer("Exit status: 0 on success, 1 on unreadable or malformed input "
             "or an entry that could not be decoded.");
  CLI11_PARSE(App, argc, argv);

  std::vector<uint8_t> Bytes;
  std::vector<Entry> Entries;
  std::optional<Error> Err = readFile(Input, Bytes);
  if (!Err)
    Err = scanFile(Bytes, Input, Entries,
                   ScanOptions{/*DataSections=*/!FatbinSectionsOnly});
  if (Err) {
    std::cerr << Err->str() << "\n";
    return 1;
  }
  if (List || OutDir.empty()) {
    for (const Entry &E : Entries)
      listEntry(E);
    if (Entries.empty())
      std::cout << "no fatbin entries\n";
    if (OutDir.empty())
      return 0;
  }

  std::error_code EC;
  std::filesystem::create_directories(OutDir, EC);
  if (EC) {
    std::cerr << OutDir << ": error: cannot create directory: "
              << EC.message() << "\n";
    return 1;
  }
  std::string Stem = std::filesystem::path(Input).stem().string();
  unsigned Extracted = 0, SassOnly = 0, Failed = 0;
  for (const Entry &E : Entries) {
    if (!E.isPTX())
      continue;
    std::vector<uint8_t> Ptx;
    if (auto DecodeErr = decodePayload(Bytes, E, Input, Ptx)) {
      std::cerr << DecodeErr->str() << "\n";
      ++Failed;
      continue;
    }
    std::filesystem::path Path =
        std::filesystem::path(OutDir) /
        (Stem + "." + std::to_string(E.Index) + ".sm_" +
         std::to_string(E.Arch) + ".ptx");
    if (!writeFile(Path, Ptx))
      return 1;
    std::cout << "wrote " << Path.string() << "\n";
    ++Extracted;
  }
  reportSassOnly(Bytes, Entries, Input, SassOnly);
  std::cout << Input << ": " << Extracted << " PTX entries extracted, "
            << SassOnly << " SASS-only entries, " << Failed
            << " entries not decoded\n";
  return Failed ? 1 : 0;
}
