//===- LazyVariants.h - Variants built at a kernel's first launch -*- C++ -*-//
//
// An object (executable or shared library) compiled with the plugin's
// -baton-lazy holds no variants: the plugin only checked its kernels, and
// gave the object a constructor that registers it here. At the first launch
// of one of its kernels, the shim asks LazyVariants for the kernel: the side
// module of the object is built as baton-recompile builds it (lib/SideModule:
// the PTX of the object's fatbins, transformed, assembled with ptxas for
// this GPU) into the side-module cache, keyed by the object's content, once
// per process and object; a later run of the same program finds it there.
// The kernel, variants and original, is then taken from the side module.
//
// Since every launch of such a kernel runs code of the side module, kernels
// that use module-scope variables (which the program's own module holds)
// are refused by that build (module-state) and run whole.
//
// Known limits: the cache holds one side module per object content, for
// the architectures of its last build, so processes on GPUs of different
// architectures sharing one cache rebuild it in turn; and processes that
// start the same new binary at once each build it.
//
#ifndef BATON_LIB_LAUNCHSHIM_LAZYVARIANTS_H
#define BATON_LIB_LAUNCHSHIM_LAZYVARIANTS_H

#include "baton/Runtime.h"
#include "baton/SideModule/Index.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace baton {

/// The loaded object (the executable or a shared library) whose segments
/// hold \p Address: its canonical path, or nullopt.
std::optional<std::filesystem::path> objectContaining(const void *Address);

class LaunchRouter;

class LazyVariants {
public:
  /// Records that the object holding \p Address was built with -baton-lazy.
  /// Called from constructors, before main() or inside dlopen (which does
  /// not hold the lock dl_iterate_phdr takes).
  static void registerObject(const void *Address);

  /// \p Original (launched through host stub \p Stub) with variants from
  /// the side module of the object holding \p Stub, built now if the cache
  /// has none, and loaded into \p Router's runtime. nullopt if that object was not registered. Throws
  /// std::runtime_error, with the reason, if the kernel cannot have
  /// variants (refused, no PTX in the fatbins, no ptxas, ...); a reason
  /// that concerns the whole object is also printed, once.
  std::optional<Kernel> kernelFor(LaunchRouter &Router, const void *Stub,
                                  const Kernel &Original);

private:
  /// What the first build of an object found, kept for its other kernels.
  struct ObjectState {
    std::string Error; ///< why the object has no side module, if it has none
    std::filesystem::path Dir;
    side::Index Kernels;
    std::map<std::string, Module> Images; ///< loaded so far, by file name
  };
  /// The state of \p Object, built at the first call (a failure is said
  /// then). With Mutex held.
  ObjectState &build(Runtime &R, const std::filesystem::path &Object);
  /// Builds the side module of \p Object into \p State; the error, or "".
  std::string buildInto(Runtime &R, const std::filesystem::path &Object,
                        ObjectState &State);

  std::mutex Mutex; ///< guards Objects; held while an object is built
  std::map<std::filesystem::path, ObjectState> Objects;
};

} // namespace baton

#endif // BATON_LIB_LAUNCHSHIM_LAZYVARIANTS_H
