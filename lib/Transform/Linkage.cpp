//===- Linkage.cpp - Whole programs ---------------------------------------===//
#include "baton/Transform/Linkage.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <set>

namespace baton {

namespace {

/// Whether \p Linkage holds one of \p Words (".extern", ".weak", ...).
bool hasLinkage(const ptx::Module &M, const std::vector<ptx::TextRef> &Linkage,
                std::initializer_list<std::string_view> Words) {
  return std::any_of(Linkage.begin(), Linkage.end(), [&](ptx::TextRef L) {
    return std::find(Words.begin(), Words.end(), M.text(L)) != Words.end();
  });
}

} // namespace

std::optional<std::string_view>
symbolDefinedElsewhere(const ptx::Module &M,
                       bool (*Ignore)(std::string_view)) {
  // ptxas itself supplies these to a whole program.
  static constexpr std::string_view Supplied[] = {"vprintf", "malloc", "free",
                                                  "__assertfail"};
  std::set<std::string_view> Defined(std::begin(Supplied), std::end(Supplied));
  for (const ptx::Function &F : M.Functions)
    if (F.HasBody || (Ignore && Ignore(M.text(F.Name))))
      Defined.insert(M.text(F.Name));
  for (const ptx::Alias &A : M.Aliases) // its aliasee is defined here
    Defined.insert(M.text(A.Name));
  for (const ptx::VarDecl &D : M.Decls)
    if (!hasLinkage(M, D.Linkage, {".extern"}))
      for (const ptx::DeclaredName &N : D.Names)
        Defined.insert(M.text(N.Name));
  for (const ptx::Function &F : M.Functions)
    if (!F.HasBody && hasLinkage(M, F.Linkage, {".extern", ".weak"}) &&
        !Defined.count(M.text(F.Name)))
      return M.text(F.Name);
  for (const ptx::VarDecl &D : M.Decls)
    if (hasLinkage(M, D.Linkage, {".extern"}) && M.text(D.Space) != ".shared")
      for (const ptx::DeclaredName &N : D.Names)
        if (!Defined.count(M.text(N.Name)))
          return M.text(N.Name);
  return std::nullopt;
}

} // namespace baton
