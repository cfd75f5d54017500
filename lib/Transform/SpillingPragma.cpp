//===- SpillingPragma.cpp - A pragma PTB variants drop --------------------===//
#include "baton/Transform/SpillingPragma.h"

#include <vector>

namespace baton {

namespace {

constexpr std::string_view Spilling = "\"enable_smem_spilling\"";

bool isSpace(char C) {
  return C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' ||
         C == '\v';
}

/// A `.pragma "s", ...;` statement of PTX text: its strings, each with its
/// quotes, and the text after its ';'.
struct PragmaStatement {
  std::vector<std::string_view> Strings;
  size_t End = 0;
};

/// Past the white space and comments at \p I of \p Ptx.
size_t skipTrivia(std::string_view Ptx, size_t I) {
  while (I < Ptx.size()) {
    if (isSpace(Ptx[I])) {
      ++I;
    } else if (Ptx.substr(I, 2) == "//") {
      size_t Eol = Ptx.find('\n', I);
      I = Eol == std::string_view::npos ? Ptx.size() : Eol + 1;
    } else if (Ptx.substr(I, 2) == "/*") {
      size_t Close = Ptx.find("*/", I + 2);
      I = Close == std::string_view::npos ? Ptx.size() : Close + 2;
    } else {
      break;
    }
  }
  return I;
}

/// The pragma statement that begins at \p At in \p Ptx, if one does.
std::optional<PragmaStatement> pragmaAt(std::string_view Ptx, size_t At) {
  constexpr std::string_view Directive = ".pragma";
  if (Ptx.substr(At, Directive.size()) != Directive)
    return std::nullopt;
  size_t I = At + Directive.size();
  if (I >= Ptx.size() || !(isSpace(Ptx[I]) || Ptx[I] == '"' || Ptx[I] == '/'))
    return std::nullopt;
  PragmaStatement P;
  for (;;) {
    I = skipTrivia(Ptx, I);
    if (I >= Ptx.size() || Ptx[I] != '"')
      return std::nullopt;
    size_t Close = Ptx.find('"', I + 1);
    if (Close == std::string_view::npos)
      return std::nullopt;
    P.Strings.push_back(Ptx.substr(I, Close + 1 - I));
    I = skipTrivia(Ptx, Close + 1);
    if (I < Ptx.size() && Ptx[I] == ',') {
      ++I;
      continue;
    }
    if (I < Ptx.size() && Ptx[I] == ';') {
      P.End = I + 1;
      return P;
    }
    return std::nullopt;
  }
}

} // namespace

std::optional<std::string> withoutSpillingPragma(std::string_view Ptx) {
  std::string Out;
  bool Found = false;
  size_t Copied = 0;
  for (size_t At = Ptx.find(".pragma"); At != std::string_view::npos;
       At = Ptx.find(".pragma", At + 1)) {
    std::optional<PragmaStatement> P = pragmaAt(Ptx, At);
    if (!P)
      continue;
    std::vector<std::string_view> Kept;
    for (std::string_view S : P->Strings)
      if (S != Spilling)
        Kept.push_back(S);
    if (Kept.size() == P->Strings.size())
      continue;
    Out.append(Ptx.substr(Copied, At - Copied));
    // The pragma's other strings stay, in a statement of their own.
    if (!Kept.empty()) {
      Out += ".pragma ";
      for (size_t K = 0; K < Kept.size(); ++K)
        Out.append(K ? ", " : "").append(Kept[K]);
      Out += ';';
    }
    Copied = P->End;
    At = P->End - 1;
    Found = true;
  }
  if (!Found)
    return std::nullopt;
  Out.append(Ptx.substr(Copied));
  return Out;
}

} // namespace baton
