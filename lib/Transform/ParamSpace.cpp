//===- ParamSpace.cpp - Room for the task pointer among the parameters ----===//
#include "ParamSpace.h"

#include "IsaLevel.h"

#include <charconv>

namespace baton::detail {

using namespace ptx;

namespace {

/// Bytes of one element of a parameter's fundamental or opaque type.
std::optional<uint64_t> typeBytes(std::string_view Type) {
  if (Type.size() < 3 || Type[0] != '.')
    return std::nullopt;
  if (Type == ".texref" || Type == ".samplerref" || Type == ".surfref")
    return 8;
  if (Type == ".f16x2" || Type == ".bf16x2")
    return 4;
  char Kind = Type[1];
  if (Kind != 'b' && Kind != 'u' && Kind != 's' && Kind != 'f')
    return std::nullopt;
  std::string_view Bits = Type.substr(Kind == 'b' && Type[2] == 'f' ? 3 : 2);
  unsigned Value = 0;
  auto [End, Error] =
      std::from_chars(Bits.data(), Bits.data() + Bits.size(), Value);
  if (Error != std::errc() || End != Bits.data() + Bits.size() ||
      Value % 8 || Value == 0 || Value > 128)
    return std::nullopt;
  return Value / 8;
}

/// The product of the dimensions in `[4][8]`; 1 for none.
std::optional<uint64_t> elementCount(std::string_view Suffix) {
  uint64_t Count = 1;
  while (!Suffix.empty()) {
    if (Suffix.front() != '[')
      return std::nullopt;
    size_t Close = Suffix.find(']');
    if (Close == std::string_view::npos)
      return std::nullopt;
    uint64_t Dim = 0;
    auto [End, Error] =
        std::from_chars(Suffix.data() + 1, Suffix.data() + Close, Dim);
    if (Error != std::errc() || End != Suffix.data() + Close || Dim == 0)
      return std::nullopt;
    Count *= Dim;
    Suffix.remove_prefix(Close + 1);
  }
  return Count;
}

uint64_t roundUp(uint64_t Value, uint64_t Align) {
  return Align > 1 ? (Value + Align - 1) / Align * Align : Value;
}

} // namespace

std::optional<uint64_t> paramBytes(const Module &M, const Function &F) {
  uint64_t Offset = 0;
  for (const Param &P : F.Params) {
    std::optional<uint64_t> Element, Align;
    bool Pointee = false; // an .align after .ptr is the pointee's
    for (size_t I = 0; I < P.Qualifiers.size(); ++I) {
      std::string_view Q = M.text(P.Qualifiers[I]);
      if (Q == ".ptr") {
        Pointee = true;
      } else if (Q == ".align" && I + 1 < P.Qualifiers.size()) {
        std::string_view N = M.text(P.Qualifiers[++I]);
        uint64_t Value = 0;
        if (std::from_chars(N.data(), N.data() + N.size(), Value).ec !=
            std::errc())
          return std::nullopt;
        if (!Pointee)
          Align = Value;
      } else if (auto Bytes = typeBytes(Q)) {
        Element = Bytes;
      }
    }
    std::optional<uint64_t> Count = elementCount(M.text(P.Suffix));
    if (!Element || !Count)
      return std::nullopt;
    Offset = roundUp(Offset, Align.value_or(*Element)) + *Element * *Count;
  }
  return Offset;
}

uint64_t paramBytesWithTask(uint64_t KernelBytes) {
  return roundUp(KernelBytes, 8) + 8;
}

uint64_t paramSpaceLimit(const Module &M) {
  IsaLevel Level = moduleIsaLevel(M);
  bool Large = Level.Sm >= 70 &&
               (Level.Major > 8 || (Level.Major == 8 && Level.Minor >= 1));
  return Large ? 32764 : 4096;
}

} // namespace baton::detail
