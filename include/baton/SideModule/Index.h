//===- baton/SideModule/Index.h - What a side module holds ------*- C++ -*-===//
//
// A side module is the offline recompilation of one library (or executable,
// or fatbin): a directory in the cache with one fatbin per fatbin container
// of the input that had PTX, each holding the container's kernels with
// their Baton variants, assembled for the chosen architectures, and an
// index. The index says, for every kernel the input holds, whether it has
// variants and in which image, why it was refused, or that the input ships
// it as SASS only. The launch interposer reads it to route a launch by the
// kernel's (mangled) name; `baton-recompile` writes it.
//
// The index is a text file, one record per line, fields separated by tabs
// (docs/offline.md shows an example):
//
//   baton-side-module <format>
//   input    <path of the input when the side module was built>
//   sha256   <content hash of the input>
//   size     <bytes of the input>
//   baton    <version of Baton that built it>
//   arch     <sm_XX>                                  (one line per arch)
//   kernel   <name> variants <slice,ptb|slice|ptb> <image> [<reason> <detail>]
//   kernel   <name> refused <reason> <detail>
//   kernel   <name> sass-only <sm_XX,...>
//
// A kernel with only some variants carries the reason the others were
// refused. Reasons are the refusal kinds of baton-ptx (docs/refusals.md)
// plus those of offline recompilation (ModuleState.h, Builder.h).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SIDEMODULE_INDEX_H
#define BATON_SIDEMODULE_INDEX_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace baton::side {

inline constexpr unsigned IndexFormatVersion = 1;
inline constexpr const char *IndexFileName = "index.txt";

enum class KernelStatus { Variants, Refused, SassOnly };

struct KernelRecord {
  std::string Name;
  KernelStatus Status = KernelStatus::Refused;
  bool Slice = false; ///< Variants: has K__baton_slice
  bool Ptb = false;   ///< Variants: has K__baton_ptb
  std::string Image;  ///< Variants: file name of its fatbin in the directory
  /// Refused, or Variants with one variant missing: the refusal kind.
  std::string Reason;
  /// Refused: one sentence with the construct and line. SassOnly: the
  /// architectures of its cubins, comma-separated.
  std::string Detail;
};

struct Index {
  std::string Input;
  std::string ContentHash;
  uint64_t InputSize = 0;
  std::string BatonVersion;
  std::vector<std::string> Archs;
  std::vector<KernelRecord> Kernels;

  /// The record of kernel \p Name, or null.
  const KernelRecord *find(std::string_view Name) const;
};

/// The text of \p I in the format above. Tabs and line breaks inside fields
/// are written as spaces.
std::string writeIndex(const Index &I);

/// Parses an index; on failure returns "line N: what is wrong".
std::optional<std::string> parseIndex(std::string_view Text, Index &Out);

/// The version written to, and required of, the indexes this Baton builds:
/// the project's version and the task ABI's (BATON_TASK_ABI_VERSION), since
/// variants built for another layout of baton_task would misread it.
const char *batonVersion();

/// The task ABI an index's variants were built for, read off its `baton`
/// line (batonVersion()): 1 for indexes written before it was recorded.
unsigned taskAbiVersion(std::string_view BatonVersion);

} // namespace baton::side

#endif // BATON_SIDEMODULE_INDEX_H
