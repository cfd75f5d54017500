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
// Threads of a CTA can only part at a conditional terminator. If every
// conditional terminator from which a full-CTA barrier can be reached
// branches on a value that is the same in every thread of the CTA, all
// threads take the same path through everything that leads to a barrier,
// and none leaves while another still waits for it. (Exits and barriers in
// callees are refused for PTB, so the kernel's own blocks are all there is
// to follow.)
//
// A value is uniform when it is a constant, a kernel argument, a read of a
// special register that is the same across a CTA (%ctaid, %nctaid, %ntid,
// %dynamic_smem_size), or the result of arithmetic, a comparison, a cast, a
// select, an address computation or a phi whose operands are all uniform
// (undef and poison are not, nor is a freeze). Loads count as uniform only from the constant and parameter address
// spaces; any other load, call or atomic may differ between threads (memory
// another thread writes, or a value computed per thread). A phi's operands
// being uniform is enough: a definition made on a path that only some
// threads take reaches no barrier (else the branch into that path would
// already need the drain), so it cannot reach a terminator that does.
// Threads that part at a branch and rejoin before a barrier are not
// followed: such kernels keep the drain, as on the PTX side.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_BARRIERDIVERGENCE_H
#define BATON_LIB_LLVM_BARRIERDIVERGENCE_H

namespace llvm {
class Function;
} // namespace llvm

namespace baton::ir {

/// Whether threads of one CTA of \p Kernel may take different paths at a
/// terminator from which a full-CTA barrier (a sync without a thread count)
/// is still reachable. False means the PTB variant needs no drain.
/// Conservative: true for any terminator it does not know.
bool threadsMayPartBeforeBarrier(const llvm::Function &Kernel);

} // namespace baton::ir

#endif // BATON_LIB_LLVM_BARRIERDIVERGENCE_H
