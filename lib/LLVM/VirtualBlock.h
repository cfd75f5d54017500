//===- VirtualBlock.h - Virtualise the block index of a function body -----===//
//
// The IR twin of lib/Transform/VirtualBlock.h. The steps shared by both
// variants and by device-function clones: virtualise block index (every
// llvm.nvvm.read.ptx.sreg.ctaid.* / nctaid.* call is replaced by the virtual
// block's coordinates / the original grid, and calls to functions that read
// the block index go to clones that receive the six values as extra
// parameters), and rewrite exits and barriers (PTB only: exits end the
// virtual block, full-CTA barriers join the early-exit protocol).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_VIRTUALBLOCK_H
#define BATON_LIB_LLVM_VIRTUALBLOCK_H

#include "CallGraph.h"
#include "baton/Transform/BlockIndexUse.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Instructions.h"

#include <array>
#include <optional>
#include <string>

namespace baton::ir {

using baton::BlockIndexUse;
/// Which block-index registers the kernel and the functions it reaches
/// read.
BlockIndexUse blockIndexUse(llvm::Function &Kernel, const CallGraph &CG,
                            llvm::ArrayRef<llvm::Function *> Reachable);

/// What a body reads instead of %ctaid.x/y/z (0-2) and %nctaid.x/y/z (3-5);
/// null where the body does not read it.
using BlockIndexValues = std::array<llvm::Value *, 6>;

/// The instructions of a freshly cloned body that the steps rewrite. They
/// are collected before a prologue is added, so the prologue's own reads
/// (the slice variant's one real %ctaid.x) are not rewritten.
struct BodyRewrites {
  llvm::SmallVector<llvm::CallInst *, 8> BlockIndexReads;
  llvm::SmallVector<llvm::CallInst *, 4> CallsToReaders;
  llvm::SmallVector<llvm::ReturnInst *, 4> Returns;
  llvm::SmallVector<llvm::CallInst *, 2> Exits; ///< at most one per block
  llvm::SmallVector<llvm::CallInst *, 4> FullBarriers;
  llvm::SmallVector<llvm::CallInst *, 2> DynamicSharedSizeReads;
  /// Inline asm holding the pragma PTB variants drop
  /// (baton/Transform/SpillingPragma.h).
  llvm::SmallVector<llvm::CallInst *, 1> SpillingPragmas;
};
BodyRewrites collectBodyRewrites(llvm::Function &F, const CallGraph &CG);

/// Clones of device functions that read the block index, shared by all
/// kernels of a module: f becomes f__baton_vb (internal) with six more i32
/// parameters, ctaid x, y, z then nctaid x, y, z. The original f is kept for
/// the original kernels and for untransformed callers.
class VirtualCallees {
public:
  VirtualCallees(llvm::Module &M, const CallGraph &CG) : M(M), CG(CG) {}
  /// Creates the clones of Reachable functions that need one (once each).
  /// Returns the names of the functions cloned.
  std::vector<std::string> cloneFor(llvm::ArrayRef<llvm::Function *> Reachable);
  llvm::Function *cloneOf(const llvm::Function &F) const {
    return CloneOf.lookup(&F);
  }

private:
  void buildClone(llvm::Function &Original, llvm::Function &Clone);

  llvm::Module &M;
  const CallGraph &CG;
  llvm::DenseMap<const llvm::Function *, llvm::Function *> CloneOf;
};

/// The name of F's clone: F__baton_vb, numbered if the module has that name.
std::string virtualCalleeName(const llvm::Module &M, const llvm::Function &F);

/// Virtualise block index: Values replace the reads, calls to block-index
/// readers go to their clones with all six Values appended.
void virtualiseBlockIndex(BodyRewrites &Body, const BlockIndexValues &Values,
                          const VirtualCallees &Callees);

/// How the PTB variant rewrites exits and barriers.
struct ExitAndBarrierRewrite {
  llvm::BasicBlock *ExitTarget = nullptr; ///< ret / exit branch here
  std::optional<uint32_t> DrainBarrier;   ///< full-CTA barriers become
                                          ///< barrier.red.and on this id
  llvm::Value *DynamicSharedSize = nullptr; ///< what the body reads instead
};
void rewriteExitsAndBarriers(BodyRewrites &Body,
                             const ExitAndBarrierRewrite &Rewrite);

} // namespace baton::ir

#endif // BATON_LIB_LLVM_VIRTUALBLOCK_H
