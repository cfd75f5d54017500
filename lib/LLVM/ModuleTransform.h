//===- ModuleTransform.h - Add Baton variants to an NVPTX module ----------===//
//
// transformModule adds, for each selected kernel K of an NVPTX module,
// K__baton_slice and K__baton_ptb as DESIGN.md specifies, leaving every
// original function as it was. The steps, shared by name with the PTX front
// end (lib/Transform): find kernels -> check safety -> clone -> virtualise
// block index -> wrap in slice / PTB loop -> rewrite exits and barriers.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_MODULETRANSFORM_H
#define BATON_LIB_LLVM_MODULETRANSFORM_H

#include "baton/Transform/Transform.h"

namespace llvm {
class Module;
} // namespace llvm

namespace baton::ir {

/// Plan only decides (for the safety printer); Check also reports each
/// refusal as a warning through the LLVMContext (variants made at first
/// launch, -baton-lazy); Build also makes the variants.
enum class TransformMode { Plan, Check, Build };

/// The same result type as the PTX front end, so the JSON report is the
/// same document (KernelFacts holds the launch bounds only; the instruction
/// counts are PTX facts).
TransformResult transformModule(llvm::Module &M, const TransformOptions &Opts,
                                TransformMode Mode);

} // namespace baton::ir

#endif // BATON_LIB_LLVM_MODULETRANSFORM_H
