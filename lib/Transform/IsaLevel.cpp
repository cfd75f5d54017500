//===- IsaLevel.cpp - The PTX ISA version and target variants need --------===//
#include "IsaLevel.h"

#include <charconv>
#include <string>

namespace baton::detail {

using namespace ptx;

namespace {

/// The directive item whose verbatim text starts with Name, or nullptr.
Item *findDirective(Module &M, std::string_view Name) {
  for (Item &I : M.Items)
    if (I.Kind == ItemKind::Directive && M.text(I.Text).starts_with(Name))
      return &I;
  return nullptr;
}

/// The first run of digits in Text at or after From: its position and value.
std::pair<size_t, unsigned> numberAt(std::string_view Text, size_t From) {
  size_t Begin = Text.find_first_of("0123456789", From);
  if (Begin == std::string_view::npos)
    return {Begin, 0};
  unsigned Value = 0;
  std::from_chars(Text.data() + Begin, Text.data() + Text.size(), Value);
  return {Begin, Value};
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
  Version.Text = M.intern(".version " + std::to_string(Need.Major) + "." +
                          std::to_string(Need.Minor));
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

bool targetMapsF64ToF32(const Module &M) {
  for (const Item &I : M.Items)
    if (I.Kind == ItemKind::Directive &&
        M.text(I.Text).starts_with(".target") &&
        M.text(I.Text).find("map_f64_to_f32") != std::string_view::npos)
      return true;
  return false;
}

void raiseIsaLevel(Module &M, IsaLevel Need) {
  if (Item *Version = findDirective(M, ".version"))
    raiseVersion(M, *Version, Need);
  if (Item *Target = findDirective(M, ".target"))
    raiseTarget(M, *Target, Need);
}

} // namespace baton::detail
