//===- BarrierDivergence.h - May threads part before a CTA barrier? -*- C++ -*-===//
//
// The IR twin of lib/Transform/BarrierDivergence.h. A PTB worker turns every
// exit of the kernel body into a branch to the end of the virtual block,
// where the thread waits for the others. A thread that exits the original
// kernel counts as arrived at every later full-CTA barrier; one that waits
// at the end of a virtual block does not, so where a thread can leave while
// another of its CTA still has a full-CTA barrier ahead, the worker runs the
// drain protocol (PtbVariant.cpp), whose reduction barriers cost the body's
// own barriers time on every pass. This analysis says where it is not
// needed.
//
// Threads of a CTA can only part at a conditional terminator whose
// condition may differ between them (or one that is not followed:
// indirectbr, callbr, invoke). Such a terminator parts them if a barrier can
// still be reached from it, unless the blocks between it and its immediate
// post-dominator hold no CTA barrier and no exit: the threads then meet
// again there, having run no barrier and left nowhere (an `if (i < n)`
// around loads, before a __syncthreads). (Exits and barriers in callees are
// refused for PTB, so the kernel's own blocks are all there is to follow.)
//
// Reduction barriers (bar.red) count as barriers too, and a second question
// asks about them alone: the PTB variant keeps one only where no thread can
// part at a terminator from which it is still reachable (its value needs
// every thread's vote, which the drain cannot give).
//
// A value may differ between threads if it is computed from one that does
// (data dependence), or if it is defined between such a terminator and its
// immediate post-dominator, or is a phi there (sync dependence: after the
// join it holds whichever path's value a thread took, or, out of a loop that
// threads leave at different trips, the trip it left at); to a fixed point.
// The sources: loads other than from the constant and parameter address
// spaces, calls and atomics (memory another thread writes, or a value
// computed per thread), thread-varying special registers, and undef, poison
// and freeze. Constants, kernel arguments, the CTA-uniform special
// registers (%ctaid, %nctaid, %ntid, %dynamic_smem_size) and the result of
// a reduction barrier without a thread count (the CTA's, whatever each
// thread votes) are the same in every thread.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_BARRIERDIVERGENCE_H
#define BATON_LIB_LLVM_BARRIERDIVERGENCE_H

#include "baton/Transform/BarrierPlan.h"

namespace llvm {
class Function;
class Instruction;
} // namespace llvm

namespace baton::ir {

/// The first terminator of \p Kernel at which threads of one CTA may take
/// different paths while one of \p Targets is still reachable from it; null
/// where there is none (with AnyCtaBarrier: the PTB variant needs no drain).
/// Conservative: any terminator it does not know counts.
const llvm::Instruction *
threadsMayPartBeforeBarrier(const llvm::Function &Kernel,
                            BarrierTargets Targets);

} // namespace baton::ir

#endif // BATON_LIB_LLVM_BARRIERDIVERGENCE_H
