//===- InstructionInfo.cpp - What NVVM IR does, for the transforms --------===//
#include "InstructionInfo.h"

#include "baton/Transform/SpillingPragma.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

#include <cctype>

using namespace llvm;

namespace baton::ir {

StringRef asmSingleInstruction(const CallBase &CB) {
  StringRef Text = inlineAsmText(CB).trim();
  if (!Text.consume_back(";"))
    return "";
  Text = Text.trim();
  return Text.contains_insensitive(";") || Text.contains('\n') ? "" : Text;
}

/// The special register that inline asm of exactly one 32-bit move reads
/// into its result (`mov.u32 $0, %ctaid.x;`, as CUDA code and Triton up to
/// 3.2 write such reads), or "".
static StringRef loneMoveSource(const CallBase &CB) {
  // An asm goto (callbr) is not rewritten like a call: it stays opaque.
  if (!isa<CallInst>(CB) || !CB.isInlineAsm() ||
      !CB.getType()->isIntegerTy(32))
    return "";
  StringRef Text = asmSingleInstruction(CB);
  size_t Space = Text.find_first_of(" \t");
  StringRef Opcode = Text.take_front(Space);
  auto [Dest, Source] = Text.drop_front(Opcode.size()).split(',');
  if ((Opcode != "mov.u32" && Opcode != "mov.b32") || Dest.trim() != "$0")
    return "";
  return Source.trim();
}

/// The call argument that inline asm operand \p Number (`$0`, `$1`, ...)
/// names, or null for an output returned by value (which has none). Asm
/// operands count outputs, then inputs, in constraint order; only inputs
/// and indirect outputs are passed as arguments.
static Value *asmOperandArgument(const CallBase &CB, unsigned Number) {
  const auto *IA = cast<InlineAsm>(CB.getCalledOperand());
  unsigned Operand = 0, Arg = 0;
  for (const InlineAsm::ConstraintInfo &C : IA->ParseConstraints()) {
    if (C.Type == InlineAsm::isClobber)
      continue;
    bool PassedAsArgument = C.Type != InlineAsm::isOutput || C.isIndirect;
    if (Operand++ == Number)
      return PassedAsArgument && Arg < CB.arg_size() ? CB.getArgOperand(Arg)
                                                     : nullptr;
    Arg += PassedAsArgument;
  }
  return nullptr;
}

/// A barrier operand of inline asm: a decimal literal, or `$N`, an operand
/// of \p CB. Sets \p Value to the constant, if it is one; false if the
/// operand is neither form.
static bool asmBarrierOperand(const CallBase &CB, StringRef Text,
                              std::optional<uint64_t> &Value) {
  Text = Text.trim();
  uint64_t N = 0;
  if (!Text.consume_front("$")) {
    if (Text.getAsInteger(10, N))
      return false;
    Value = N;
    return true;
  }
  // `${N}` and `${N:modifier}` name operand N too.
  if (Text.consume_front("{")) {
    if (!Text.consume_back("}"))
      return false;
    Text = Text.take_until([](char C) { return C == ':'; });
  }
  if (Text.getAsInteger(10, N))
    return false;
  Value.reset();
  if (auto *C = dyn_cast_or_null<ConstantInt>(
          asmOperandArgument(CB, static_cast<unsigned>(N))))
    if (C->getValue().isIntN(32))
      Value = C->getZExtValue();
  return true;
}

/// Inline PTX that is exactly one CTA barrier, as CUDA code writes named
/// barriers: `bar.sync 1, 64;`, `bar.arrive 2, 128;`, `barrier.sync 0;`,
/// or with operands, `bar.sync 1, %0;` :: "r"(n) (`bar.sync 1, $0` in IR).
/// The id is known if it is a literal or an operand that is a constant. An
/// asm statement with a result is not a lone barrier.
static std::optional<BarrierUse> classifyAsmBarrier(const CallBase &CB) {
  if (!CB.getType()->isVoidTy())
    return std::nullopt;
  StringRef Text = asmSingleInstruction(CB);
  auto [Opcode, Operands] = Text.split(' ');
  SmallVector<StringRef, 4> Parts;
  Opcode.split(Parts, '.');
  if (Parts.empty() || (Parts[0] != "bar" && Parts[0] != "barrier"))
    return std::nullopt;
  BarrierUse B;
  B.Aligned = Parts[0] == "bar";
  size_t I = 1;
  if (I < Parts.size() && Parts[I] == "cta")
    ++I;
  if (I >= Parts.size() || (Parts[I] != "sync" && Parts[I] != "arrive"))
    return std::nullopt;
  B.Op = Parts[I] == "sync" ? BarrierUse::Sync : BarrierUse::Arrive;
  for (++I; I < Parts.size(); ++I) {
    if (Parts[I] != "aligned")
      return std::nullopt;
    B.Aligned = true;
  }
  SmallVector<StringRef, 2> Args;
  Operands.split(Args, ',');
  std::optional<uint64_t> Id, Count;
  if (Args.empty() || Args.size() > 2 || !asmBarrierOperand(CB, Args[0], Id))
    return std::nullopt;
  if (Args.size() == 2 && !asmBarrierOperand(CB, Args[1], Count))
    return std::nullopt;
  B.HasCount = Args.size() == 2;
  if (Id && *Id < 16)
    B.Id = static_cast<uint32_t>(*Id);
  return B;
}

std::optional<BarrierUse> classifyBarrier(const CallBase &CB) {
  if (CB.isInlineAsm())
    return classifyAsmBarrier(CB);
  BarrierUse B;
  switch (CB.getIntrinsicID()) {
  case Intrinsic::nvvm_barrier_cta_sync_all:
    B.Aligned = false;
    break;
  case Intrinsic::nvvm_barrier_cta_sync_aligned_all:
    break;
  case Intrinsic::nvvm_barrier_cta_sync_count:
    B.Aligned = false;
    B.HasCount = true;
    break;
  case Intrinsic::nvvm_barrier_cta_sync_aligned_count:
    B.HasCount = true;
    break;
  case Intrinsic::nvvm_barrier_cta_arrive_count:
    B.Aligned = false;
    [[fallthrough]];
  case Intrinsic::nvvm_barrier_cta_arrive_aligned_count:
    B.Op = BarrierUse::Arrive;
    B.HasCount = true;
    break;
  case Intrinsic::nvvm_barrier_cta_red_popc_all:
  case Intrinsic::nvvm_barrier_cta_red_and_all:
  case Intrinsic::nvvm_barrier_cta_red_or_all:
    B.Aligned = false;
    B.Op = BarrierUse::Reduce;
    break;
  case Intrinsic::nvvm_barrier_cta_red_popc_aligned_all:
  case Intrinsic::nvvm_barrier_cta_red_and_aligned_all:
  case Intrinsic::nvvm_barrier_cta_red_or_aligned_all:
    B.Op = BarrierUse::Reduce;
    break;
  case Intrinsic::nvvm_barrier_cta_red_popc_count:
  case Intrinsic::nvvm_barrier_cta_red_and_count:
  case Intrinsic::nvvm_barrier_cta_red_or_count:
    B.Aligned = false;
    [[fallthrough]];
  case Intrinsic::nvvm_barrier_cta_red_popc_aligned_count:
  case Intrinsic::nvvm_barrier_cta_red_and_aligned_count:
  case Intrinsic::nvvm_barrier_cta_red_or_aligned_count:
    B.Op = BarrierUse::Reduce;
    B.HasCount = true;
    break;
  default:
    return std::nullopt;
  }
  if (auto *Id = dyn_cast<ConstantInt>(CB.getArgOperand(0)))
    if (Id->getValue().ult(16))
      B.Id = static_cast<uint32_t>(Id->getZExtValue());
  return B;
}

std::optional<unsigned> blockIndexRegister(const CallBase &CB) {
  if (CB.isInlineAsm()) {
    static constexpr StringRef Registers[] = {"%ctaid.x",  "%ctaid.y",
                                              "%ctaid.z",  "%nctaid.x",
                                              "%nctaid.y", "%nctaid.z"};
    StringRef Source = loneMoveSource(CB);
    for (unsigned R = 0; R < 6; ++R)
      if (Source == Registers[R])
        return R;
    return std::nullopt;
  }
  switch (CB.getIntrinsicID()) {
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_x: return 0;
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_y: return 1;
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_z: return 2;
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_x: return 3;
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_y: return 4;
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_z: return 5;
  default: return std::nullopt;
  }
}

bool isHoistableAlloca(const AllocaInst &AI, const BasicBlock &Entry) {
  return AI.getParent() == &Entry && isa<ConstantInt>(AI.getArraySize());
}

bool isExit(const CallBase &CB) {
  if (CB.isInlineAsm())
    return asmSingleInstruction(CB) == "exit";
  return CB.getIntrinsicID() == Intrinsic::nvvm_exit;
}

bool readsDynamicSharedSize(const CallBase &CB) {
  // CUDA code reads it as asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(x)).
  if (CB.isInlineAsm())
    return loneMoveSource(CB) == "%dynamic_smem_size";
  return CB.getIntrinsicID() == Intrinsic::nvvm_read_ptx_sreg_dynamic_smem_size;
}

bool isCudaBuiltinVariable(const GlobalVariable &G) {
  auto *Type = dyn_cast<StructType>(G.getValueType());
  return Type && Type->hasName() &&
         Type->getName().starts_with("struct.__cuda_builtin_");
}

bool holdsSpillingPragma(const CallBase &CB) {
  if (!CB.isInlineAsm())
    return false;
  const auto *IA = cast<InlineAsm>(CB.getCalledOperand());
  return withoutSpillingPragma(IA->getAsmString()).has_value();
}

Function *calledFunction(const CallBase &CB) {
  if (Function *F = CB.getCalledFunction())
    return F;
  auto *Alias = dyn_cast<GlobalAlias>(CB.getCalledOperand());
  if (!Alias || Alias->isInterposable())
    return nullptr;
  auto *Aliasee = dyn_cast<Function>(Alias->getAliaseeObject());
  return Aliasee && Aliasee->getFunctionType() == CB.getFunctionType()
             ? Aliasee
             : nullptr;
}

std::string specialRegister(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  if (!F || !F->isIntrinsic())
    return "";
  StringRef Name = F->getName();
  if (!Name.consume_front("llvm.nvvm.read.ptx.sreg."))
    return "";
  // The intrinsics spell %cluster_ctaid.x as cluster.ctaid.x.
  if (Name.consume_front("cluster."))
    return "%cluster_" + Name.str();
  return "%" + Name.str();
}

StringRef inlineAsmText(const CallBase &CB) {
  if (auto *IA = dyn_cast<InlineAsm>(CB.getCalledOperand()))
    return IA->getAsmString();
  return "";
}

static bool isWordChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '%' ||
         C == '$';
}

bool asmReadsRegister(StringRef Text, StringRef Reg) {
  for (size_t Pos = Text.find(Reg); Pos != StringRef::npos;
       Pos = Text.find(Reg, Pos + 1)) {
    size_t End = Pos + Reg.size();
    if ((Pos == 0 || !isWordChar(Text[Pos - 1])) &&
        (End == Text.size() || !isWordChar(Text[End])))
      return true;
  }
  return false;
}

AsyncCopyUse asyncCopyUse(const CallBase &CB) {
  AsyncCopyUse Use;
  if (StringRef Text = inlineAsmText(CB); !Text.empty()) {
    Use.IntoShared =
        Text.contains("cp.async.ca.") || Text.contains("cp.async.cg.");
    Use.OutOfShared = Text.contains(".bulk_group");
    return Use;
  }
  const Function *Callee = CB.getCalledFunction();
  if (!Callee || !Callee->isIntrinsic())
    return Use;
  StringRef Name = Callee->getName();
  Use.IntoShared = Name.starts_with("llvm.nvvm.cp.async.ca.shared.global") ||
                   Name.starts_with("llvm.nvvm.cp.async.cg.shared.global");
  Use.OutOfShared =
      Name.starts_with("llvm.nvvm.cp.async.bulk.shared.cta.to.global") ||
      Name.starts_with("llvm.nvvm.cp.async.bulk.tensor.s2g") ||
      Name.starts_with("llvm.nvvm.cp.async.bulk.tensor.reduce");
  return Use;
}

bool asmHasInstruction(StringRef Text, StringRef Opcode) {
  for (size_t Pos = Text.find(Opcode); Pos != StringRef::npos;
       Pos = Text.find(Opcode, Pos + 1)) {
    size_t End = Pos + Opcode.size();
    bool StartsWord = Pos == 0 || !(isWordChar(Text[Pos - 1]) ||
                                    Text[Pos - 1] == '.');
    bool EndsWord = End == Text.size() || !isWordChar(Text[End]);
    if (StartsWord && EndsWord)
      return true;
  }
  return false;
}

} // namespace baton::ir
