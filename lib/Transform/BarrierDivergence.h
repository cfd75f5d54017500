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
// branch, exit or barrier, or an indexed branch) whose predicate may differ
// between the threads of a CTA. A guarded exit or barrier that can still be
// followed by a barrier parts them. A branch does not if the statements
// between it and its immediate post-dominator hold no barrier and no exit:
// the threads meet again there, having run no barrier and left nowhere
// (an `if (i < n)` around loads, before a __syncthreads). Reduction
// barriers (bar.red) count as barriers too: the PTB variant keeps them only
// where nobody can have left (their value needs every thread's vote, which
// the drain cannot give). Their value is the same in every thread.
//
// Uniformity is a forward data-flow over registers, to a fixed point. A
// register may differ between threads if a definition of it does: one
// under a varying guard; an instruction other than arithmetic, logic, move,
// conversion, a uniform load or a reduction barrier of the whole CTA (whose
// value is the CTA's, whatever each thread votes; with a thread count, each
// group of threads gets its own), or one of the first five with a varying
// operand (%tid, %laneid, ... or a varying register); or any
// definition between a varying branch and its post-dominator (after the
// join the register holds whichever path's value a thread took). Loads are
// uniform from .const and from kernel parameters, named or through a
// uniform register (a struct of parameters read at offsets; ptxas lets no
// register hold the address of a .param declared in the body, such as a
// call's return value). Registers and labels declared in a nested { }
// block (inline assembly) are told apart from the function's own and from
// other blocks' of the same name (BodyScopes.h).
//
// The analysis gives up ("may part") on indexed branches, labels it cannot
// resolve, and kernels large enough to exceed a fixed budget of work.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_TRANSFORM_BARRIERDIVERGENCE_H
#define BATON_LIB_TRANSFORM_BARRIERDIVERGENCE_H

#include "baton/PTX/AST.h"
#include "baton/Transform/BarrierPlan.h"

#include <optional>
#include <string>

namespace baton::detail {

/// Where threads of one CTA may part: at statement At, or, where At is
/// null, somewhere the analysis could not follow (a label it cannot
/// resolve, a kernel over its budget).
struct PartingPoint {
  const ptx::Statement *At = nullptr;
};

/// Whether threads of one CTA of \p Kernel may take different paths at a
/// point from which one of \p Targets is still reachable, and the first
/// such point. nullopt means they cannot. Conservative: a point for
/// anything it cannot follow.
std::optional<PartingPoint>
threadsMayPartBeforeBarrier(const ptx::Module &M, const ptx::Function &Kernel,
                            BarrierTargets Targets);

/// The parting point in words, with its line, for a diagnostic.
std::string describeParting(const ptx::Module &M, const PartingPoint &P);

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_BARRIERDIVERGENCE_H
