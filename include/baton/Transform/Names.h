//===- baton/Transform/Names.h - Names Baton generates ----------*- C++ -*-===//
//
// Every name the transforms create comes from here, so the PTX and LLVM front
// ends cannot drift apart. The variant suffixes are ABI (the runtime looks
// variants up by name) and are defined in the task header.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_NAMES_H
#define BATON_TRANSFORM_NAMES_H

#include "baton/task.h"

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace baton {

enum class VariantKind { Slice, Ptb };

inline constexpr std::string_view SliceSuffix = BATON_SLICE_SUFFIX;
inline constexpr std::string_view PtbSuffix = BATON_PTB_SUFFIX;
/// Suffix of a device function cloned to take the virtual block index.
inline constexpr std::string_view VirtualCalleeSuffix = "__baton_vb";
/// Stem of registers, labels and variables the transforms add; a number is
/// appended when the input already uses the stem (see freshPrefix).
inline constexpr std::string_view GeneratedStem = "baton";

inline std::string_view variantSuffix(VariantKind K) {
  return K == VariantKind::Slice ? SliceSuffix : PtbSuffix;
}
inline bool isVariantName(std::string_view Name) {
  return Name.ends_with(SliceSuffix) || Name.ends_with(PtbSuffix);
}

/// The PTB variant's ABI marker for \p Kernel (task.h), a global the
/// runtime looks up by this name.
inline std::string abiMarkerName(std::string_view Kernel) {
  return std::string(Kernel) + BATON_PTB_SUFFIX BATON_ABI_MARKER_SUFFIX;
}

/// Every module-level name the variants of \p Kernel may add: a module that
/// already has one of them gets a name-collision refusal for the kernel.
inline std::array<std::string, 3> namesAddedFor(std::string_view Kernel) {
  return {std::string(Kernel) + std::string(SliceSuffix),
          std::string(Kernel) + std::string(PtbSuffix),
          abiMarkerName(Kernel)};
}

/// A stem such that no identifier in Used (with any leading '%' or '$')
/// starts with "<stem>_", so every generated name "<stem>_..." is fresh:
/// "baton", else "baton0", "baton1", ...
std::string freshPrefix(std::span<const std::string_view> Used);

} // namespace baton

#endif // BATON_TRANSFORM_NAMES_H
