//===- Catalogue.h - Which kernels have variants, and where -----*- C++ -*-===//
//
// The interposer sees a kernel's name at its first launch and needs the side
// module that baton-recompile built for the library holding it. Side
// modules come from one of two places:
//
//  * BATON_SIDE_MODULE: side-module directories, ':'-separated, used as
//    they are (nothing is hashed or discovered);
//  * otherwise, the cache (BATON_CACHE_DIR, else ~/.cache/baton): each
//    object the process has loaded (the executable and its libraries, also
//    those dlopen'ed later) that holds fatbins is looked up by the SHA-256
//    of its bytes. A stamp per path (Cache.h) spares rereading a library
//    that has not changed since it was last hashed.
//
// A kernel that several side modules hold is taken from the first one
// found (the executable before its libraries, in load order).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_PRELOAD_CATALOGUE_H
#define BATON_LIB_PRELOAD_CATALOGUE_H

#include "baton/SideModule/Index.h"

#include <deque>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace baton::preload {

struct SideKernel {
  const side::KernelRecord *Record = nullptr;
  std::filesystem::path Dir; ///< the side module's directory
  /// Where the side module came from: the object it was built for, or
  /// BATON_SIDE_MODULE.
  std::string Origin;
};

class Catalogue {
public:
  /// From BATON_SIDE_MODULE if it is set, else discovery in the cache.
  Catalogue();

  /// The kernel \p Name in the side modules; objects loaded since the last
  /// lookup are looked at first if it is not known yet.
  std::optional<SideKernel> find(const std::string &Name);

private:
  void add(const std::filesystem::path &Dir, const std::string &Origin);
  /// Looks up the side module of every object not seen yet.
  void discover();
  void lookUpObject(const std::string &Path);

  bool Discovering = false;
  std::optional<std::filesystem::path> Root;
  uint64_t ObjectsAddedSeen = ~uint64_t(0); ///< dl_iterate_phdr's count
  std::set<std::string> ObjectsSeen;
  std::deque<side::Index> Indexes;
  std::unordered_map<std::string, SideKernel> ByName;
};

} // namespace baton::preload

#endif // BATON_LIB_PRELOAD_CATALOGUE_H
