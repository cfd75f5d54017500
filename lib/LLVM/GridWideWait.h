//===- GridWideWait.h - Grid-wide barriers written by hand, in IR -*- C++ -*-=//
//
// The IR twin of lib/Transform/GridWideWait.h, whose comment says what a
// grid-wide barrier written by hand is, why it is refused, and what is
// recognised. Here the loops are LoopInfo's and the branches those that
// leave one; the loop's slice stops at its header's phis (induction
// variables); polling reads are volatile or atomic loads, atomics that
// leave the word as it was, and inline PTX with ld.volatile, ld.relaxed,
// ld.acquire (libcu++'s atomics), ld.cg or ld.cv (__ldcg, __ldcv). Not seen besides what the PTX side does
// not see: NVVM atomic intrinsics, other inline PTX, and values passed
// through shuffles, votes or reduction barriers (any call ends the slice).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_GRIDWIDEWAIT_H
#define BATON_LIB_LLVM_GRIDWIDEWAIT_H

#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"

namespace baton::ir {

/// The branch of \p F that ends a wait for the whole grid, or nullptr if
/// \p F has none.
const llvm::Instruction *findGridWideWait(llvm::Function &F);

} // namespace baton::ir

#endif // BATON_LIB_LLVM_GRIDWIDEWAIT_H
