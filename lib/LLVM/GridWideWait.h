//===- GridWideWait.h - Grid-wide barriers written by hand, in IR -*- C++ -*-=//
//
// The IR twin of lib/Transform/GridWideWait.h, whose comment says what a
// grid-wide barrier written by hand is, why it is refused, and what is
// recognised. Here the loops are LoopInfo's and the branches those that
// leave one; the loop's slice stops at its header's phis (induction
// variables); polling reads are volatile or atomic loads, atomics that
// leave the word as it was, and inline PTX with ld.volatile, ld.relaxed,
// ld.acquire (libcu++'s atomics), ld.cg or ld.cv (__ldcg, __ldcv). A
// sense-reversing barrier is recognised as on the PTX side: the generation
// is a value from outside the loop computed from a load or poll of the
// pointer (casts stripped; inline PTX's one pointer argument) that a
// polling read in the loop reads, and the last block's test an icmp of a
// value computed from an arrival (atomicrmw add, sub, uinc_wrap, udec_wrap
// that is not a poll, or inline PTX of one such atom, as libcu++'s
// cuda::atomic_ref writes it) with one computed from %nctaid, or with
// anything where the function sets the arrival's word (casts stripped) to
// a number computed from %nctaid (a store; an xchg or add of it, or a
// decrement's wrap bound; as instructions or inline PTX: a count that
// counts down). A count the blocks arrive at and wait on is recognised as
// there too: an icmp in the loop of a polled value with a constant, where
// an arrival outside the loop that dominates it counts the block in at the
// polled pointer (and takes from the count, or the constant is above 1, or
// the loop goes on waiting at a count of 1 where it compares the polled
// value itself and the arrival's result is unused); inline PTX `red` counts
// as an arrival too (CUTLASS's barriers).
// Not seen besides what the PTX side does not see: NVVM
// atomic intrinsics, other inline PTX, and values passed through shuffles,
// votes or reduction barriers (any call ends the slice).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_GRIDWIDEWAIT_H
#define BATON_LIB_LLVM_GRIDWIDEWAIT_H

#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"

#include <optional>
#include <string_view>

namespace baton::ir {

struct GridWideWait {
  const llvm::Instruction *Branch; ///< ends the wait
  std::string_view Message;        ///< the grid-sync refusal's (Refusal.h)
};

/// The wait for the whole grid in \p F, if it has one.
std::optional<GridWideWait> findGridWideWait(llvm::Function &F);

} // namespace baton::ir

#endif // BATON_LIB_LLVM_GRIDWIDEWAIT_H
