//===- IsaLevel.cpp - PTX version and target the variants need -----------===//
#include "IsaLevel.h"

#include <charconv>
#include <string>

namespace baton::detail {

using namespace ptx;

namespace {

/// The directive item whose verbatim text starts with Name, or nullptr.
template <typename ModuleT> auto *findDirective(ModuleT &M,
                                                std::string_view Name) {
  for (auto &I : M.Items)
    if (I.Kind == ItemKind::Directive && M.text(I.Text).starts_with(Name))
      return &I;
  return static_cast<decltype(&M.Items[0])>(nullptr);
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

void raiseVersion(Module &M, Item &Version, IsaLevel Need) {
  std::string_view Text = M.text(Version.Text);
  auto [MajorAt, Major] = numberAt(Text, 0);
  size_t Dot = MajorAt == std::string_view::npos ? MajorAt
                                                   : Text.find('.', MajorAt);
  if (Dot == std::string_view::npos)
    return;
  unsigned Minor = numberAt(Text, Dot).second;
  if (Major > Need.Major || (Major == Need.Major && Minor >= Need.Minor))
    return;
  std::string Raised = ".version ";
  Raised.append(std::to_string(Need.Major)).append(".");
  Raised.append(std::to_string(Need.Minor));
  Version.Text = M.intern(Raised);
}

void raiseTarget(Module &M, Item &Target, IsaLevel Need) {
  std::string_view Text = M.text(Target.Text);
  size_t Sm = Text.find("sm_");
  if (Sm == std::string_view::npos)
    return;
  auto [At, Number] = numberAt(Text, Sm);
  if (At != Sm + 3 || Number >= Need.Sm)
    return;
  size_t End = Text.find_first_not_of("0123456789", At);
  End = End == std::string_view::npos ? Text.size() : End;
  std::string Raised(Text.substr(0, At));
  Raised += std::to_string(Need.Sm);
  Raised += Text.substr(End);
  Target.Text = M.intern(Raised);
}

} // namespace

bool targetsSm1x(const Module &M) {
  const Item *Target = findDirective(M, ".target");
  if (!Target)
    return false;
  std::string_view Text = M.text(Target->Text);
  size_t Sm = Text.find("sm_");
  if (Sm == std::string_view::npos)
    return false;
  auto [At, Number] = numberAt(Text, Sm);
  return At == Sm + 3 && Number < 20;
}

void raiseIsaLevel(Module &M, IsaLevel Need) {
  if (Item *Version = findDirective(M, ".version"))
    raiseVersion(M, *Version, Need);
  if (Item *Target = findDirective(M, ".target"))
    raiseTarget(M, *Target, Need);
}

} // namespace baton::detail
