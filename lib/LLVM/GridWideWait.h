//===- GridWideWait.h - Grid-wide barriers written by hand, in IR -*- C++ -*-=//
//
// The IR twin of lib/Transform/GridWideWait.h, whose comment says what a
// grid-wide barrier written by hand is and why it is refused. Here: a
// conditional branch that leaves a loop (LoopInfo), whose condition depends
// both on a value loaded from global or generic memory by a volatile or
// atomic load (or returned by an atomic read-modify-write or compare-and-
// swap), and on llvm.nvvm.read.ptx.sreg.nctaid.*. Dependence is followed
// through the operands of the condition's computation (phis included); a
// load's pointer does not make its value depend on anything; a function's
// arguments end the search (a goal handed to a device function that is not
// inlined is not seen).
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
