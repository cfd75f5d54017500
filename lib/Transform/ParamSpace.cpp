//===- ParamSpace.cpp - A kernel's parameter space -----------------------===//
#include "ParamSpace.h"

#include "IsaLevel.h"
#include "baton/Transform/Refusal.h"

#include <charconv>
#include <optional>

namespace baton::detail {

using namespace ptx;

namespace {

/// Bytes of one element of a parameter's type; 0 for the opaque types,
/// which ptxas keeps outside the parameter space.
std::optional<uint64_t> typeBytes(std::string_view Type) {
  if (Type == ".texref" || Type == ".samplerref" || Type == ".surfref")
    return 0;
  if (Type.size() < 3 || Type[0] != '.')
    return std::nullopt;
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

std::string_view trimmed(std::string_view Text) {
  size_t Begin = Text.find_first_not_of(" \t\r\n");
  if (Begin == std::string_view::npos)
    return {};
  size_t End = Text.find_last_not_of(" \t\r\n");
  return Text.substr(Begin, End - Begin + 1);
}

/// The element count of `[N]`; 1 for no suffix. Kernel parameters have at
/// most one dimension (ptxas rejects more).
std::optional<uint64_t> elementCount(std::string_view Suffix) {
  Suffix = trimmed(Suffix);
  if (Suffix.empty())
    return 1;
  if (Suffix.front() != '[' || Suffix.back() != ']')
    return std::nullopt;
  std::optional<uint64_t> Count =
      parseIntegerLiteral(trimmed(Suffix.substr(1, Suffix.size() - 2)));
  if (!Count || *Count == 0)
    return std::nullopt;
  return Count;
}

uint64_t roundUp(uint64_t Value, uint64_t Align) {
  return Align > 1 ? (Value + Align - 1) / Align * Align : Value;
}

} // namespace

std::variant<uint64_t, std::string_view> paramBytes(const Module &M,
                                                    const Function &F) {
  uint64_t Offset = 0;
  for (const Param &P : F.Params) {
    std::optional<uint64_t> Element, Align;
    for (size_t I = 0; I < P.Qualifiers.size(); ++I) {
      std::string_view Q = M.text(P.Qualifiers[I]);
      if (Q == ".align" && I + 1 < P.Qualifiers.size()) {
        std::optional<uint64_t> Value =
            parseIntegerLiteral(M.text(P.Qualifiers[++I]));
        if (!Value)
          return M.text(P.Name);
        // ptxas aligns a parameter by an .align before its type; one after
        // it (the pointee's, after .ptr) does not move the parameter.
        if (!Element)
          Align = Value;
      } else if (!Element) {
        Element = typeBytes(Q);
      }
    }
    std::optional<uint64_t> Count = elementCount(M.text(P.Suffix));
    if (!Element || !Count)
      return M.text(P.Name);
    Offset = roundUp(Offset, Align.value_or(*Element)) + *Element * *Count;
  }
  return Offset;
}

uint64_t paramSpaceLimit(const Module &M) {
  IsaLevel Level = moduleIsaLevel(M);
  return kernelParamSpaceLimit(Level.Major, Level.Minor, Level.Sm);
}

} // namespace baton::detail
