//===- baton/Transform/KernelFacts.h - What a scheduler needs ---*- C++ -*-===//
//
// Static facts about a kernel, read off its PTX (and that of the functions it
// calls), for the scheduler's first decisions before anything is measured.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_KERNELFACTS_H
#define BATON_TRANSFORM_KERNELFACTS_H

#include "baton/PTX/AST.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

namespace baton {

struct KernelFacts {
  std::optional<std::array<uint32_t, 3>> ReqNTid;  ///< .reqntid
  std::optional<std::array<uint32_t, 3>> MaxNTid;  ///< .maxntid
  std::optional<uint32_t> MinNCtaPerSm;            ///< .minnctapersm
  std::optional<uint32_t> MaxNReg;                 ///< .maxnreg
  uint64_t StaticSharedBytes = 0; ///< function- and module-scope .shared used
  bool UsesDynamicSharedMemory = false;            ///< extern .shared arrays
  uint64_t LocalBytes = 0;                         ///< .local per thread
  uint32_t RegistersDeclared = 0; ///< virtual registers declared (all types)
  uint32_t Barriers = 0;          ///< CTA barrier instructions
  uint32_t GlobalMemoryOps = 0;   ///< ld/st/atom/red/cp on .global
  uint32_t SharedMemoryOps = 0;   ///< ld/st/atom on .shared
  uint32_t TensorCoreOps = 0;     ///< mma, wmma, wgmma, tcgen05.mma
  uint32_t AsyncCopyOps = 0;      ///< cp.async, cp.async.bulk(.tensor)
  uint32_t Instructions = 0;
  uint32_t Calls = 0;
};

/// Computes facts kernel by kernel; indexes the module's shared variables
/// once, so a module of many kernels costs linear time.
class KernelFactsAnalysis {
public:
  explicit KernelFactsAnalysis(const ptx::Module &M);
  /// Facts of kernel K; Reachable lists the functions it may call.
  KernelFacts compute(const ptx::Function &K,
                      std::span<const uint32_t> Reachable) const;

private:
  const ptx::Module &M;
  /// Name -> index into M.Decls (indices stay valid as transforms add decls).
  std::unordered_map<std::string_view, uint32_t> ModuleShared;
};

} // namespace baton

#endif // BATON_TRANSFORM_KERNELFACTS_H
