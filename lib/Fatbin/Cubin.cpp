//===- Cubin.cpp - Kernel names and registers of a cubin ------------------===//
#include "baton/Fatbin/Cubin.h"

#include "ByteReader.h"
#include "baton/Fatbin/Elf.h"

using namespace baton::fatbin;

namespace {
constexpr uint8_t STT_FUNC = 2;
/// st_other bit that marks a CUDA kernel entry point (device functions that
/// are not kernels are STT_FUNC without it).
constexpr uint8_t STO_CUDA_ENTRY = 0x10;
/// .nv.info record formats and the one attribute read here.
constexpr uint8_t EIFMT_SVAL = 4;
constexpr uint8_t EIATTR_REGCOUNT = 0x2f;

std::optional<Error> readCubin(std::span<const uint8_t> Cubin,
                               const std::string &File, uint64_t Base,
                               std::vector<ElfSection> &Sections,
                               std::vector<ElfSymbol> &Symbols) {
  if (auto Err = readElfSections(Cubin, File, Base, Sections))
    return Err;
  return readElfSymbols(Cubin, Sections, File, Base, Symbols);
}
} // namespace

std::optional<Error> baton::fatbin::cubinKernels(std::span<const uint8_t> Cubin,
                                                 const std::string &File,
                                                 uint64_t Base,
                                                 std::vector<std::string> &Out) {
  std::vector<ElfSection> Sections;
  std::vector<ElfSymbol> Symbols;
  if (auto Err = readCubin(Cubin, File, Base, Sections, Symbols))
    return Err;
  for (const ElfSymbol &S : Symbols)
    if ((S.Info & 0xf) == STT_FUNC && (S.Other & STO_CUDA_ENTRY) &&
        !S.Name.empty())
      Out.push_back(S.Name);
  return std::nullopt;
}

std::optional<Error>
baton::fatbin::cubinRegisters(std::span<const uint8_t> Cubin,
                              const std::string &File, uint64_t Base,
                              std::vector<FunctionRegisters> &Out) {
  std::vector<ElfSection> Sections;
  std::vector<ElfSymbol> Symbols;
  if (auto Err = readCubin(Cubin, File, Base, Sections, Symbols))
    return Err;
  for (const ElfSection &S : Sections) {
    if (S.Name != ".nv.info")
      continue;
    if (!inBounds(Cubin.size(), S.Offset, S.Size))
      return Error{File, Base + S.Offset, ".nv.info runs past the end"};
    std::span<const uint8_t> Info = Cubin.subspan(S.Offset, S.Size);
    for (uint64_t At = 0; At + 4 <= Info.size();) {
      uint8_t Format = Info[At], Attribute = Info[At + 1];
      uint16_t Size = 0;
      readLE(Info, At + 2, Size);
      uint64_t Payload = At + 4;
      At = Format == EIFMT_SVAL ? Payload + Size : Payload;
      if (Format != EIFMT_SVAL || Attribute != EIATTR_REGCOUNT)
        continue;
      uint32_t Symbol = 0, Registers = 0;
      if (Size != 8 || !readLE(Info, Payload, Symbol) ||
          !readLE(Info, Payload + 4, Registers) || Symbol >= Symbols.size())
        return Error{File, Base + S.Offset + Payload - 4,
                     "malformed register count record in .nv.info"};
      Out.push_back({Symbols[Symbol].Name, Registers});
    }
  }
  return std::nullopt;
}
