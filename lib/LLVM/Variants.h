//===- Variants.h - Build the slice and PTB variants of a kernel ----------===//
//
// The IR twin of lib/Transform/Variants.h.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_VARIANTS_H
#define BATON_LIB_LLVM_VARIANTS_H

#include "SafetyAnalysis.h"
#include "VirtualBlock.h"
#include "baton/Transform/Names.h"

#include "llvm/IR/IRBuilder.h"

namespace baton::ir {

struct VariantRequest {
  llvm::Function &Kernel;
  BlockIndexUse Use; ///< which block-index registers it reads
  const CallGraph &CG;
  const VirtualCallees &Callees;
};

llvm::Function *buildSliceVariant(const VariantRequest &R);
/// DynamicShared is the module's zero-size extern shared array, whose
/// address is the start of dynamic shared memory.
llvm::Function *buildPtbVariant(const VariantRequest &R,
                                const BarrierPlan &Plan,
                                llvm::GlobalVariable &DynamicShared);

/// A variant under construction: the kernel cloned with the task parameter
/// appended, an empty entry block for the prologue (holding the body's
/// static allocas, which must stay in the entry block), and the cloned
/// body's entry block and rewrites.
struct VariantShell {
  llvm::Function *F = nullptr;
  llvm::Argument *Task = nullptr;
  llvm::BasicBlock *Entry = nullptr;
  llvm::BasicBlock *BodyEntry = nullptr;
  BodyRewrites Body;
};
VariantShell addVariantFunction(const VariantRequest &R, VariantKind Kind);

/// Loads the 32-bit task field at Offset (a BATON_TASK_OFFSET_* constant).
llvm::Value *emitLoadTaskField(llvm::IRBuilderBase &B, llvm::Value *Task,
                               unsigned Offset, const llvm::Twine &Name);
/// Loads the original grid dimensions that decoding or %nctaid reads need;
/// null for the others. \p Grid is the task, or a copy of its grid fields
/// in the task's layout (the PTB loop state's, task.h).
std::array<llvm::Value *, 3> emitLoadGrid(llvm::IRBuilderBase &B,
                                          llvm::Value *Grid,
                                          const BlockIndexUse &Use);
/// Decodes linear virtual block V into the coordinates Use needs (x fastest,
/// then y, then z); null for the others. May end B's block with a branch:
/// code after it goes where B then points.
std::array<llvm::Value *, 3> emitDecode(llvm::IRBuilderBase &B,
                                        const BlockIndexUse &Use,
                                        llvm::Value *V,
                                        const std::array<llvm::Value *, 3> &Grid,
                                        const llvm::Twine &Prefix);

} // namespace baton::ir

#endif // BATON_LIB_LLVM_VARIANTS_H
