//===- Cubin.cpp - Kernel names of a cubin --------------------------------===//
#include "baton/Fatbin/Cubin.h"

#include "baton/Fatbin/Elf.h"

using namespace baton::fatbin;

namespace {
constexpr uint8_t STT_FUNC = 2;
/// st_other bit that marks a CUDA kernel entry point (device functions that
/// are not kernels are STT_FUNC without it).
constexpr uint8_t STO_CUDA_ENTRY = 0x10;
} // namespace

std::optional<Error> baton::fatbin::cubinKernels(std::span<const uint8_t> Cubin,
                                                 const std::string &File,
                                                 uint64_t Base,
                                                 std::vector<std::string> &Out) {
  std::vector<ElfSection> Sections;
  if (auto Err = readElfSections(Cubin, File, Base, Sections))
    return Err;
  std::vector<ElfSymbol> Symbols;
  if (auto Err = readElfSymbols(Cubin, Sections, File, Base, Symbols))
    return Err;
  for (const ElfSymbol &S : Symbols)
    if ((S.Info & 0xf) == STT_FUNC && (S.Other & STO_CUDA_ENTRY) &&
        !S.Name.empty())
      Out.push_back(S.Name);
  return std::nullopt;
}
