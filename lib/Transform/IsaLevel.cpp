//===- IsaLevel.cpp - PTX version and target the variants need -----------===//
#include "IsaLevel.h"

#include <charconv>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

namespace baton::detail {

using namespace ptx;

namespace {

/// The index of the directive item whose verbatim text starts with Name.
std::optional<size_t> directiveIndex(const Module &M, std::string_view Name) {
  for (size_t I = 0; I < M.Items.size(); ++I)
    if (M.Items[I].Kind == ItemKind::Directive &&
        M.text(M.Items[I].Text).starts_with(Name))
      return I;
  return std::nullopt;
}

/// The first run of digits in Text at or after From: its position and value.
std::pair<size_t, unsigned> numberAt(std::string_view Text, size_t From) {
  size_t Begin = Text.find_first_of("0123456789", From);
  if (Begin == std::string_view::npos)
    return {Begin, 0};
  unsigned Value = 0;
  auto [End, Error] =
      std::from_chars(Text.data() + Begin, Text.data() + Text.size(), Value);
  return {Begin, Error == std::errc() ? Value : ~0u};
}

/// Where the sm number of a `.target` directive's text starts, and its value.
std::optional<std::pair<size_t, unsigned>> smNumber(std::string_view Text) {
  size_t Sm = Text.find("sm_");
  if (Sm == std::string_view::npos)
    return std::nullopt;
  auto Number = numberAt(Text, Sm);
  if (Number.first != Sm + 3)
    return std::nullopt;
  return Number;
}

/// The major and minor numbers of a `.version` directive's text.
std::optional<std::pair<unsigned, unsigned>>
versionNumbers(std::string_view Text) {
  auto [MajorAt, Major] = numberAt(Text, 0);
  size_t Dot = MajorAt == std::string_view::npos ? MajorAt
                                                   : Text.find('.', MajorAt);
  if (Dot == std::string_view::npos)
    return std::nullopt;
  return std::pair{Major, numberAt(Text, Dot).second};
}

void raiseVersion(Module &M, Item &Version, IsaLevel Need) {
  auto Numbers = versionNumbers(M.text(Version.Text));
  if (!Numbers)
    return;
  auto [Major, Minor] = *Numbers;
  if (Major > Need.Major || (Major == Need.Major && Minor >= Need.Minor))
    return;
  std::string Raised = ".version ";
  Raised.append(std::to_string(Need.Major)).append(".");
  Raised.append(std::to_string(Need.Minor));
  Version.Text = M.intern(Raised);
}

void raiseTarget(Module &M, Item &Target, IsaLevel Need) {
  std::string_view Text = M.text(Target.Text);
  auto Sm = smNumber(Text);
  if (!Sm || Sm->second >= Need.Sm)
    return;
  size_t At = Sm->first;
  size_t End = Text.find_first_not_of("0123456789", At);
  End = End == std::string_view::npos ? Text.size() : End;
  std::string Raised(Text.substr(0, At));
  Raised += std::to_string(Need.Sm);
  Raised += Text.substr(End);
  Target.Text = M.intern(Raised);
}

} // namespace

IsaLevel moduleIsaLevel(const Module &M) {
  IsaLevel Level;
  if (auto Version = directiveIndex(M, ".version"))
    if (auto Numbers = versionNumbers(M.text(M.Items[*Version].Text)))
      std::tie(Level.Major, Level.Minor) = *Numbers;
  if (auto Target = directiveIndex(M, ".target"))
    if (auto Sm = smNumber(M.text(M.Items[*Target].Text)))
      Level.Sm = Sm->second;
  return Level;
}

bool hasAddressSize32(const Module &M) {
  auto Size = directiveIndex(M, ".address_size");
  return Size && numberAt(M.text(M.Items[*Size].Text), 0).second == 32;
}

bool targetsSm1x(const Module &M) {
  auto Target = directiveIndex(M, ".target");
  if (!Target)
    return false;
  auto Sm = smNumber(M.text(M.Items[*Target].Text));
  return Sm && Sm->second < 20;
}

const VarDecl *moduleScopeRegisterOrLocal(const Module &M) {
  for (const Item &I : M.Items) {
    if (I.Kind != ItemKind::Variable)
      continue;
    const VarDecl &D = M.Decls[I.Index];
    if (M.text(D.Space) == ".reg" || M.text(D.Space) == ".local")
      return &D;
  }
  return nullptr;
}

void raiseIsaLevel(Module &M, IsaLevel Need) {
  if (auto Version = directiveIndex(M, ".version"))
    raiseVersion(M, M.Items[*Version], Need);
  if (auto Target = directiveIndex(M, ".target"))
    raiseTarget(M, M.Items[*Target], Need);
}

} // namespace baton::detail
