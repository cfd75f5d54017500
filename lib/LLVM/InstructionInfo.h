//===- InstructionInfo.h - What NVVM IR does, for the transforms ----------===//
//
// Classification of the calls that matter to Baton on NVPTX IR: block-index
// reads, exits, CTA barriers, special registers and inline PTX. The IR twin
// of lib/Transform/InstructionInfo.h; everything else is carried through
// untouched.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_INSTRUCTIONINFO_H
#define BATON_LIB_LLVM_INSTRUCTIONINFO_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"

#include <cstdint>
#include <optional>
#include <string>

namespace baton::ir {

/// A CTA-wide barrier: an llvm.nvvm.barrier.cta.* intrinsic (LLVM upgrades
/// the older barrier0 / bar.sync spellings to these when it reads a module),
/// or inline PTX that is exactly one bar/barrier sync or arrive.
struct BarrierUse {
  enum OpKind { Sync, Arrive, Reduce } Op = Sync;
  bool Aligned = true;
  std::optional<uint32_t> Id; ///< nullopt unless a constant below 16
  bool HasCount = false;      ///< an explicit thread count operand
  /// A sync of every thread of the CTA: what the PTB drain must keep
  /// joinable (BarrierPlan.h), and what BarrierDivergence looks for.
  bool isFullCtaSync() const { return Op == Sync && !HasCount; }
};
std::optional<BarrierUse> classifyBarrier(const llvm::CallBase &CB);

/// The function CB runs: its callee, or the aliasee of a callee that is an
/// alias no other module can replace (`@f = alias ..., ptr @g`), called with
/// the aliasee's own type; null for an indirect call or inline assembly.
llvm::Function *calledFunction(const llvm::CallBase &CB);

/// Block-index special registers: 0-2 are %ctaid.x/y/z, 3-5 %nctaid.x/y/z,
/// read through the intrinsic or by inline PTX that is exactly one 32-bit
/// move (`mov.u32 $0, %ctaid.x;`).
std::optional<unsigned> blockIndexRegister(const llvm::CallBase &CB);

/// An alloca the PTB variant moves out of its loop: one of the kernel's
/// entry block \p Entry (the body's first block, once the variant puts its
/// own in front), of a size known at compile time. Any other alloca of the
/// kernel would take more stack in every virtual block (dynamic-stack).
bool isHoistableAlloca(const llvm::AllocaInst &AI,
                       const llvm::BasicBlock &Entry);

/// llvm.nvvm.exit, or inline PTX that is exactly `exit;`.
bool isExit(const llvm::CallBase &CB);
/// llvm.nvvm.read.ptx.sreg.dynamic_smem_size, or inline PTX that is exactly
/// `mov.u32 $0, %dynamic_smem_size;` (its only output, an i32).
bool readsDynamicSharedSize(const llvm::CallBase &CB);
/// One of the variables clang declares for CUDA's blockIdx, threadIdx,
/// blockDim, gridDim and warpSize (a struct __cuda_builtin_*_t, extern_weak
/// at -O0): no other module defines it, the back end reads special
/// registers for it.
bool isCudaBuiltinVariable(const llvm::GlobalVariable &G);
/// Inline asm whose text holds `.pragma "enable_smem_spilling";`, which
/// PTB variants drop (baton/Transform/SpillingPragma.h).
bool holdsSpillingPragma(const llvm::CallBase &CB);

/// The PTX spelling of the special register an llvm.nvvm.read.ptx.sreg.*
/// intrinsic reads ("%smid", "%cluster_ctaid.x"), or "" for other calls.
std::string specialRegister(const llvm::CallBase &CB);

/// The inline PTX of CB, or "" if CB does not call inline assembly.
llvm::StringRef inlineAsmText(const llvm::CallBase &CB);
/// The one instruction of CB's inline PTX, without its `;` ("bar.sync 1,
/// 64;" -> "bar.sync 1, 64"), or "" if it holds anything else or CB does
/// not call inline assembly.
llvm::StringRef asmSingleInstruction(const llvm::CallBase &CB);
/// True if Text names the special register Reg ("%ctaid" also matches
/// "%ctaid.x" but not "%nctaid").
bool asmReadsRegister(llvm::StringRef Text, llvm::StringRef Reg);
/// True if Text holds the instruction Opcode ("exit", "bar.sync") as a word.
bool asmHasInstruction(llvm::StringRef Text, llvm::StringRef Opcode);

/// Asynchronous copies that may still write or read a CTA's shared memory
/// after the thread that issued them has moved on (the PTX side's
/// AsyncCopyUse, lib/Transform/InstructionInfo.h).
struct AsyncCopyUse {
  bool IntoShared = false;  ///< cp.async.ca/cg: waited by cp.async.wait_all
  bool OutOfShared = false; ///< bulk copies out of shared memory
                            ///< (bulk_group): cp.async.bulk.wait_group.read

  AsyncCopyUse &operator|=(const AsyncCopyUse &Other) {
    IntoShared |= Other.IntoShared;
    OutOfShared |= Other.OutOfShared;
    return *this;
  }
};
/// The async copies of the intrinsic or inline PTX that CB calls.
AsyncCopyUse asyncCopyUse(const llvm::CallBase &CB);

} // namespace baton::ir

#endif // BATON_LIB_LLVM_INSTRUCTIONINFO_H
