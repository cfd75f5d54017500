//===- baton/SideModule/Cache.h - Where side modules are kept ---*- C++ -*-===//
//
// The cache is a directory (default ~/.cache/baton) with one subdirectory
// per recompiled input, named by the SHA-256 of the input's bytes:
//
//   <root>/<sha256>/index.txt          the index (Index.h)
//   <root>/<sha256>/<image>.fatbin     the side module's images
//   <root>/stamps/<sha256 of path>     "<size> <mtime ns> <sha256>": the last
//                                      hash of a file at that path
//
// Stamps let the launch interposer find the side module of a library it
// sees loaded without reading the whole library each time a program starts
// (framework libraries are hundreds of MB): the hash is reused while the
// file at that path keeps its size and modification time, and recomputed
// otherwise. A side module is published by renaming a finished directory
// into place, so a reader never sees half of one.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SIDEMODULE_CACHE_H
#define BATON_SIDEMODULE_CACHE_H

#include "baton/SideModule/Index.h"

#include <filesystem>
#include <optional>
#include <string>

namespace baton::side {

/// $BATON_CACHE_DIR if set, else $XDG_CACHE_HOME/baton, else
/// $HOME/.cache/baton (nullopt if none of them is set).
std::optional<std::filesystem::path> defaultCacheRoot();

/// The directory of the side module of content \p Hash.
std::filesystem::path sideModuleDir(const std::filesystem::path &Root,
                                    const std::string &Hash);

/// The content hash of \p File: from its stamp under \p Root when the file
/// still has the stamped size and modification time, else computed, and
/// then stamped if \p Root is writable. nullopt with \p Error set if the
/// file cannot be read.
std::optional<std::string> contentHash(const std::filesystem::path &Root,
                                       const std::filesystem::path &File,
                                       std::string &Error);

/// Reads the index of the side module in \p Dir; nullopt with \p Error set
/// if there is none or it does not parse.
std::optional<Index> readIndex(const std::filesystem::path &Dir,
                               std::string &Error);

} // namespace baton::side

#endif // BATON_SIDEMODULE_CACHE_H
