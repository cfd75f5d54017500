//===- BarrierDivergence.h - May threads part before a CTA barrier? -*- C++ -*-===//
//
// A PTB worker turns every exit of the kernel body into a branch to the end
// of the virtual block, where the thread waits for the others. A thread
// that exits the original kernel counts as arrived at every later
// full-CTA barrier; one that waits at the end of a virtual block does not,
// so where a thread can leave while another of its CTA still has a
// full-CTA barrier ahead, the worker runs the drain protocol (PtbVariant.cpp),
// whose reduction barriers cost the body's own barriers time on every
// pass. This analysis says where the drain is not needed.
//
// Threads can only part at a conditional control transfer (a guarded
// branch, exit or barrier, or an indexed branch). If every such transfer
// from which a full-CTA barrier can be reached is guarded by a predicate
// that is the same in every thread of the CTA, all threads take the same
// path through everything that leads to a barrier, and none leaves while
// another still waits for it.
//
// Uniformity is a forward data-flow over registers. A register is uniform
// when every definition of it is an arithmetic, logic, move or conversion
// instruction, under a uniform guard, whose operands are immediates,
// addresses of variables or parameters, uniform registers, or special
// registers that are the same across a CTA (%ctaid, %nctaid, %ntid, ...);
// loads count as uniform only from the kernel's parameters and from .const.
// Definitions made on a path taken by only some threads do not need
// tracking: such a path reaches no barrier (else its branch would already
// need the drain), so they cannot reach a branch that does.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_TRANSFORM_BARRIERDIVERGENCE_H
#define BATON_LIB_TRANSFORM_BARRIERDIVERGENCE_H

#include "baton/PTX/AST.h"

namespace baton::detail {

/// Whether threads of one CTA of \p Kernel may take different paths at a
/// point from which a full-CTA barrier (bar.sync / barrier.sync without a
/// thread count) is still reachable. False means the PTB variant needs no
/// drain. Conservative: true for anything it cannot follow.
bool threadsMayPartBeforeBarrier(const ptx::Module &M,
                                 const ptx::Function &Kernel);

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_BARRIERDIVERGENCE_H
