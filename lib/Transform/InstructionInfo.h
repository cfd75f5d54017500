//===- InstructionInfo.h - What PTX instructions do, for the transforms ---===//
//
// Classification of the instructions and operands that matter to Baton:
// block-index reads, exits, CTA barriers and calls. Everything else is
// carried through untouched, whatever its opcode.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_TRANSFORM_INSTRUCTIONINFO_H
#define BATON_LIB_TRANSFORM_INSTRUCTIONINFO_H

#include "baton/PTX/AST.h"

#include <optional>
#include <string_view>
#include <vector>

namespace baton::detail {

/// A CTA-wide barrier instruction (PTX ISA 9.0, 9.7.13.1 bar, barrier).
struct BarrierUse {
  enum OpKind { Sync, Arrive, Reduce } Op = Sync;
  bool Aligned = true;
  std::optional<uint32_t> Id; ///< nullopt when the id is in a register
  bool HasCount = false;      ///< an explicit thread count operand
  uint32_t IdOperand = 0;     ///< index of the id among the arguments

  /// A sync of the whole CTA (no thread count): the barriers an exited
  /// thread counts as arrived at, and the drain protocol rewrites.
  bool isFullCtaSync() const { return Op == Sync && !HasCount; }
};

/// The barrier of S, if S is a CTA barrier (not bar.warp.sync, not
/// barrier.cluster).
std::optional<BarrierUse> classifyBarrier(const ptx::Module &M,
                                          const ptx::Statement &S);

bool isClusterBarrier(std::string_view Opcode);

/// Asynchronous copies that may still write or read a CTA's shared memory
/// after the thread that issued them has moved on.
struct AsyncCopyUse {
  /// cp.async.ca/cg: writes into shared memory, waited for by
  /// cp.async.wait_all.
  bool IntoShared = false;
  /// Bulk copies and reductions that read shared memory (completion by
  /// bulk async-group), waited for by cp.async.bulk.wait_group.read.
  bool OutOfShared = false;

  AsyncCopyUse &operator|=(const AsyncCopyUse &Other) {
    IntoShared |= Other.IntoShared;
    OutOfShared |= Other.OutOfShared;
    return *this;
  }
};
AsyncCopyUse asyncCopyUse(std::string_view Opcode);

/// The symbols instruction S writes: those of its first operand (a
/// register, a vector of them, or a predicate pair p|q), unless that
/// operand is one S reads (branches, calls, stores, reductions, barriers but
/// bar.red, fences, prefetches, nanosleep, stackrestore) or is an address or
/// an immediate. Guards are not operands here. Empty for a label or a
/// directive.
std::vector<std::string_view> definedSymbols(const ptx::Module &M,
                                             const ptx::Statement &S);

/// ret or exit, guarded or not.
bool isExit(std::string_view Opcode);
bool isCall(std::string_view Opcode);

/// The callee symbol operand of a call, or nullptr for an indirect call.
const ptx::Operand *directCallee(const ptx::Module &M, const ptx::Statement &S);
/// Index (among the statement's operands) of the argument list of a call:
/// the parenthesised list right after the callee; nullopt when it has none.
std::optional<uint32_t> callArgumentList(const ptx::Module &M,
                                         const ptx::Statement &S);

/// Calls F(Operand) for every Symbol operand in Op, recursively.
template <typename Fn>
void forEachSymbol(const ptx::Module &M, const ptx::Operand &Op, Fn &&F) {
  if (Op.Kind == ptx::OperandKind::Symbol || Op.Kind == ptx::OperandKind::Guard)
    F(Op);
  for (const ptx::Operand &Child : M.children(Op))
    forEachSymbol(M, Child, F);
}

/// Block-index special registers (PTX ISA 9.0, 10.8 and 10.9).
enum class BlockIndexRegister { CtaIdX, CtaIdY, CtaIdZ, NCtaIdX, NCtaIdY,
                                NCtaIdZ };
std::optional<BlockIndexRegister> blockIndexRegister(std::string_view Name);

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_INSTRUCTIONINFO_H
