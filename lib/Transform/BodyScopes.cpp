//===- BodyScopes.cpp - The nested { } scopes of a PTX function body ------===//
#include "BodyScopes.h"

#include <charconv>

namespace baton::detail {

using namespace ptx;

namespace {

/// N of "<N>" (a range %r0..%r{N-1}), 0 for a single register.
uint32_t registerCount(std::string_view Suffix) {
  uint32_t N = 0;
  if (Suffix.size() > 2 && Suffix.front() == '<')
    std::from_chars(Suffix.data() + 1, Suffix.data() + Suffix.size() - 1, N);
  return N;
}

bool declares(std::string_view Declared, uint32_t Count,
              std::string_view Name) {
  if (Count == 0)
    return Name == Declared;
  if (!Name.starts_with(Declared) || Name.size() == Declared.size())
    return false;
  std::string_view Digits = Name.substr(Declared.size());
  uint32_t Index = 0;
  auto [End, Error] =
      std::from_chars(Digits.data(), Digits.data() + Digits.size(), Index);
  return Error == std::errc() && End == Digits.data() + Digits.size() &&
         Index < Count;
}

} // namespace

bool BodyScopes::build(const Module &M, std::span<const Statement> Body) {
  ScopeOf.assign(Body.size(), 0);
  Scopes.assign(1, Scope());
  std::vector<uint32_t> Open{0};
  for (uint32_t I = 0; I < Body.size(); ++I) {
    const Statement &S = Body[I];
    if (S.Kind == StatementKind::BlockBegin) {
      Scopes.emplace_back().Parent = Open.back();
      Open.push_back(static_cast<uint32_t>(Scopes.size() - 1));
    } else if (S.Kind == StatementKind::BlockEnd) {
      if (Open.size() == 1)
        return false;
      Open.pop_back();
    } else if (S.Kind == StatementKind::Label) {
      if (!Scopes[Open.back()].Labels.emplace(M.text(S.Text), I).second)
        return false;
    } else if (S.Kind == StatementKind::Decl && Open.back() != 0) {
      const VarDecl &D = M.Decls[S.First];
      if (M.text(D.Space) == ".reg")
        for (const DeclaredName &N : D.Names)
          Scopes[Open.back()].Registers.push_back(
              {M.text(N.Name), registerCount(M.text(N.Suffix))});
    }
    ScopeOf[I] = Open.back();
  }
  return Open.size() == 1;
}

RegisterKey BodyScopes::registerKey(std::string_view Name,
                                    uint32_t Statement) const {
  for (uint32_t S = ScopeOf[Statement]; S != 0; S = Scopes[S].Parent)
    for (const auto &[Declared, Count] : Scopes[S].Registers)
      if (declares(Declared, Count, Name))
        return {Name, S};
  return {Name, 0};
}

std::optional<uint32_t> BodyScopes::label(std::string_view Name,
                                          uint32_t Statement) const {
  for (uint32_t S = ScopeOf[Statement];; S = Scopes[S].Parent) {
    if (auto It = Scopes[S].Labels.find(Name); It != Scopes[S].Labels.end())
      return It->second;
    if (S == 0)
      return std::nullopt;
  }
}

} // namespace baton::detail
