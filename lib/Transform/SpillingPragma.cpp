//===- SpillingPragma.cpp - A pragma PTB variants drop --------------------===//
#include "baton/Transform/SpillingPragma.h"

namespace baton {

namespace {

bool isSpace(char C) {
  return C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' ||
         C == '\v';
}

/// The end of the `.pragma "enable_smem_spilling";` statement that begins
/// at \p At in \p Ptx (just past its ';'), if one does.
std::optional<size_t> spillingPragmaEnd(std::string_view Ptx, size_t At) {
  constexpr std::string_view Directive = ".pragma";
  constexpr std::string_view Value = "\"enable_smem_spilling\"";
  if (Ptx.substr(At, Directive.size()) != Directive)
    return std::nullopt;
  size_t I = At + Directive.size();
  auto skipSpace = [&] {
    while (I < Ptx.size() && isSpace(Ptx[I]))
      ++I;
  };
  if (I >= Ptx.size() || !isSpace(Ptx[I]))
    return std::nullopt;
  skipSpace();
  if (Ptx.substr(I, Value.size()) != Value)
    return std::nullopt;
  I += Value.size();
  skipSpace();
  if (I >= Ptx.size() || Ptx[I] != ';')
    return std::nullopt;
  return I + 1;
}

} // namespace

std::optional<std::string> withoutSpillingPragma(std::string_view Ptx) {
  std::string Out;
  bool Found = false;
  size_t Copied = 0;
  for (size_t At = Ptx.find(".pragma"); At != std::string_view::npos;
       At = Ptx.find(".pragma", At + 1)) {
    std::optional<size_t> End = spillingPragmaEnd(Ptx, At);
    if (!End)
      continue;
    Out.append(Ptx.substr(Copied, At - Copied));
    Copied = *End;
    At = *End - 1;
    Found = true;
  }
  if (!Found)
    return std::nullopt;
  Out.append(Ptx.substr(Copied));
  return Out;
}

} // namespace baton
