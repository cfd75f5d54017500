//===- baton/SideModule/Builder.h - Offline recompilation of a library -*- C++ -*-//
//
// buildSideModule turns a shared library, executable or fatbin into a side
// module in the cache (Cache.h): it extracts the PTX of every fatbin
// container (lib/Fatbin, compressed or not), adds Baton variants to every
// kernel that can have them (lib/Transform, as baton-ptx does), assembles
// each container for the chosen architectures with ptxas and packs it with
// fatbinary, then writes the index (Index.h): kernel by kernel, its
// variants, its refusal, or that the input holds it as SASS only.
//
// Per container, one PTX entry is used: the newest whose architecture is
// not above the lowest one asked for, so that it assembles for all of them
// (the driver could JIT it the same way). Its transformed PTX goes into the
// fatbin too, for GPUs newer than the cubins.
//
// Refusal reasons of offline recompilation, besides baton-ptx's:
//   module-state      the kernel uses module-scope variables (ModuleState.h)
//   ptx-parse-error   the container's PTX does not parse
//   ptxas-failed      ptxas rejected the transformed module
//   no-ptx-for-arch   (a warning) the PTX is newer than an architecture asked
//                     for, or specific to another one
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SIDEMODULE_BUILDER_H
#define BATON_SIDEMODULE_BUILDER_H

#include "baton/SideModule/Index.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace baton::side {

struct BuildOptions {
  /// Architectures to assemble for: sm_90, sm_80, sm_90a, ...
  std::vector<std::string> Archs = {"sm_90"};
  std::filesystem::path CacheRoot;
  /// The directory holding ptxas and fatbinary.
  std::filesystem::path CudaBin = "/usr/local/cuda/bin";
  /// Containers processed at once (ptxas dominates the time).
  unsigned Jobs = 1;
  /// Rebuild even if the cache holds a side module for these options.
  bool Force = false;
  /// Also read fatbins embedded as data (lib/Fatbin's ScanOptions).
  bool DataSections = true;
  /// Called after each container with PTX is done, with how many are done
  /// and how many there are; from one thread at a time.
  std::function<void(unsigned Done, unsigned Total)> Progress;
};

struct BuildResult {
  std::filesystem::path Dir; ///< the side module's directory
  bool CacheHit = false;     ///< found in the cache, nothing was built
  Index Kernels;
  /// Problems that cost some kernels their variants but not the build.
  std::vector<std::string> Warnings;
};

/// Builds (or finds in the cache) the side module of \p Input. Returns an
/// error message if the input cannot be read or is malformed, or the cache
/// cannot be written.
std::optional<std::string> buildSideModule(const std::filesystem::path &Input,
                                           const BuildOptions &Options,
                                           BuildResult &Result);

/// Where ptxas and fatbinary are looked for by default: $CUDA_PATH/bin,
/// else $CUDA_HOME/bin, else /usr/local/cuda/bin.
std::filesystem::path defaultCudaBin();

} // namespace baton::side

#endif // BATON_SIDEMODULE_BUILDER_H
