//===- Arch.cpp - GPU architectures of PTX and cubins ---------------------===//
#include "baton/SideModule/Arch.h"

namespace baton::side {

std::optional<Arch> parseArch(std::string_view S) {
  if (!S.starts_with("sm_") && !S.starts_with("compute_"))
    return std::nullopt;
  S.remove_prefix(S.find('_') + 1);
  Arch A;
  size_t Digits = 0;
  while (Digits < S.size() && S[Digits] >= '0' && S[Digits] <= '9')
    A.Number = A.Number * 10 + unsigned(S[Digits++] - '0');
  A.Suffix = std::string(S.substr(Digits));
  if (Digits == 0 || Digits > 4 || (A.Suffix != "" && A.Suffix != "a" &&
                                    A.Suffix != "f"))
    return std::nullopt;
  return A;
}

std::optional<Arch> assemblyArch(const Arch &Ptx, const Arch &Wanted) {
  if (!Ptx.Suffix.empty())
    return Ptx.Number == Wanted.Number ? std::optional(Ptx) : std::nullopt;
  return Ptx.Number <= Wanted.Number ? std::optional(Wanted) : std::nullopt;
}

std::optional<Arch> moduleTarget(const ptx::Module &M) {
  for (const ptx::Item &I : M.Items) {
    if (I.Kind != ptx::ItemKind::Directive)
      continue;
    std::string_view Text = M.text(I.Text);
    if (!Text.starts_with(".target"))
      continue;
    Text.remove_prefix(7);
    size_t Begin = Text.find_first_not_of(" \t");
    size_t End = Text.find_first_of(" \t,;\n", Begin);
    if (Begin == std::string_view::npos)
      return std::nullopt;
    return parseArch(Text.substr(Begin, End - Begin));
  }
  return std::nullopt;
}

} // namespace baton::side
