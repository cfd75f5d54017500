//===- Linkage.cpp - Whole programs ---------------------------------------===//
#include "baton/Transform/Linkage.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <set>
#include <unordered_map>

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

std::unordered_map<std::string_view, uint32_t>
functionsByName(const ptx::Module &M) {
  std::unordered_map<std::string_view, uint32_t> ByName;
  for (uint32_t F = 0; F < M.Functions.size(); ++F) {
    auto [It, Inserted] = ByName.try_emplace(M.text(M.Functions[F].Name), F);
    if (!Inserted && M.Functions[F].HasBody)
      It->second = F; // the definition wins over a forward declaration
  }
  std::unordered_map<std::string_view, std::string_view> AliasOf;
  for (const ptx::Alias &A : M.Aliases)
    AliasOf.emplace(M.text(A.Name), M.text(A.Aliasee));
  for (const auto &[Name, Target] : AliasOf) {
    std::string_view End = Target;
    for (size_t Hops = 0; Hops < AliasOf.size() && AliasOf.count(End); ++Hops)
      End = AliasOf.at(End);
    auto Aliasee = ByName.find(End);
    if (!AliasOf.count(End) && Aliasee != ByName.end() &&
        M.Functions[Aliasee->second].HasBody)
      ByName[Name] = Aliasee->second;
  }
  return ByName;
}

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
