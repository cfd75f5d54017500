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
// Recognised (a heuristic, aimed at the barriers' shape, not a proof):
// a branch that repeats a loop (back to a label at or before it) or leaves
// one (from between that label and the repeating branch to outside them),
// whose predicate compares a value the loop polls with a number of blocks
// fixed before the loop. The predicate's definitions inside the loop are
// followed back to a polling read there (a strong load, ld.volatile,
// ld.relaxed or ld.acquire, or one past the L1, ld.cg or ld.cv, of global
// or generic memory; or an atomic that leaves the word as it was: add 0,
// or 0, and -1, a compare-and-swap that writes what it compares with) and to a register the loop does not define
// that is computed from %nctaid (through registers, flow-insensitively,
// and through the values atomics add or exchange, not the bound of
// atom.inc). A register the loop defines from itself (i += stride) is an
// induction variable, not a goal, and ends the search.
//
// Also recognised: a sense-reversing barrier, whose blocks wait for a
// generation or sense word to change while the last to arrive changes it.
// A loop's branch, as above, whose predicate compares a value the loop
// polls with a register the loop does not define that is computed
// (through registers) from a read of the same address, any load or poll
// (the generation the block saw before waiting, or the sense it flipped),
// in a kernel that compares a count taken by an arriving atomic (add, sub,
// inc, dec that changes the word, through registers) with a number
// computed from %nctaid (the last block's test), or with anything where
// the kernel sets the word it counts at to a number computed from %nctaid
// (st; atom.exch or atom.add of it, or atom.dec's wrap bound): a count
// that counts down to the last block, `atomicSub(&left, 1) == 1` with
// `left = gridDim.x` after it. Addresses are compared as written, or as
// the symbol a register was moved from (nvcc's `mov.u64 %rd6, left` before
// `atom [%rd6]`), through adds of constants, with the same offset.
//
// Also recognised, with no grid size in sight: a barrier whose blocks
// count themselves in at a word and wait for it to reach a fixed number.
// A loop's branch, as above, whose predicate is a comparison in the loop
// of a value the loop polls with a constant (on either side), where an
// arrival before the loop on every way into it, as far as the body's order
// tells (an atom or red that adds, subtracts, increments or decrements,
// and changes the word) counts the block in at the address polled: a count
// down from a number the host set (`atomicSub(&left, 1); while (left !=
// 0);`), or up to one in the source. An arrival that adds waits for others
// where the constant is above 1 (a block's own arrival ends `while (count <
// 1)` at once: cuSOLVER's getf2_domino kernels), or where the loop, comparing
// the polled value itself, goes on waiting at a count of 1 and nothing reads
// what the arrival returned (`while (count == 1)`, `while (count != 0)`
// after a count up from a negative start).
//
// Not recognised (their variants may hang): a goal the host passes as a
// parameter or that passes through memory, a wait for a flag that no
// arrival count checked against the grid size guards, polling with plain
// (weak) loads, a wait in a
// device function that gets its goal as an argument and is not inlined,
// and builds without optimisation (values through local memory).
// Waits that stay allowed, and are safe: spin locks (the holder is
// running), ticket locks (blocks count in at one word and wait at
// another), waits for an earlier block's flag (decoupled look-back: the
// variants hand blocks out in order, so the block waited for has started),
// loops that claim work with atomics, and loops whose bound is polled
// before them.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_TRANSFORM_GRIDWIDEWAIT_H
#define BATON_LIB_TRANSFORM_GRIDWIDEWAIT_H

#include "baton/PTX/AST.h"

#include <optional>
#include <string_view>

namespace baton::detail {

struct GridWideWait {
  const ptx::Statement *Branch; ///< repeats or ends the wait
  std::string_view Message;     ///< the grid-sync refusal's (Refusal.h)
};

/// The wait for the whole grid in \p F, if it has one.
std::optional<GridWideWait> findGridWideWait(const ptx::Module &M,
                                             const ptx::Function &F);

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_GRIDWIDEWAIT_H
