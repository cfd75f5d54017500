//===- GridWideWait.h - Grid-wide barriers written by hand ------*- C++ -*-===//
//
// A kernel that waits in a loop until a counter in global memory, which the
// blocks raise as they arrive, reaches a number computed from the grid's
// size is a grid-wide barrier written by hand (SHOC's BFS, Xiao and Feng's
// lock-based GPU synchronisation). It needs every block of the grid
// resident at once. A variant runs the grid a part at a time, so a waiting
// block would wait for blocks that cannot start until it ends: a hang. Such
// kernels are refused as cooperative grid syncs are (grid-sync).
//
// Recognised: a branch that repeats a loop (back to a label at or before
// it) or leaves one (from between that label and the back branch to
// outside them), whose predicate depends both on a value read from global
// memory by a strong load (ld.volatile, ld.relaxed, ld.acquire; global or
// generic) or an atomic, and on %nctaid. Dependence is followed through
// registers, flow-insensitively (every definition of a register counts);
// a load's address does not make its value depend on anything. Not
// followed: values that pass through memory, and a goal handed to a device
// function that is not inlined.
//
// Waits that stay allowed: spin locks (an atomic compared with a constant)
// and waits for an earlier block's flag (decoupled look-back), which the
// variants' in-order claims keep live: the block waited for has started.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_TRANSFORM_GRIDWIDEWAIT_H
#define BATON_LIB_TRANSFORM_GRIDWIDEWAIT_H

#include "baton/PTX/AST.h"

namespace baton::detail {

/// The branch of \p F that repeats or ends a wait for the whole grid, or
/// nullptr if \p F has none.
const ptx::Statement *findGridWideWait(const ptx::Module &M,
                                       const ptx::Function &F);

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_GRIDWIDEWAIT_H
