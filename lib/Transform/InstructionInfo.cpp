//===- InstructionInfo.cpp - What PTX instructions do ---------------------===//
#include "InstructionInfo.h"

namespace baton::detail {

using namespace ptx;

bool isClusterBarrier(std::string_view Opcode) {
  std::string_view Base = opcodeBase(Opcode);
  return (Base == "barrier" || Base == "bar") &&
         hasModifier(Opcode, ".cluster");
}

AsyncCopyUse asyncCopyUse(std::string_view Opcode) {
  AsyncCopyUse Use;
  Use.IntoShared =
      Opcode.starts_with("cp.async.ca.") || Opcode.starts_with("cp.async.cg.");
  // Only copies out of shared::cta complete by bulk async-group (PTX ISA,
  // cp.async.bulk, cp.reduce.async.bulk, their .tensor and multimem forms).
  Use.OutOfShared = hasModifier(Opcode, ".bulk_group");
  return Use;
}

std::optional<BarrierUse> classifyBarrier(const Module &M,
                                          const Statement &S) {
  if (S.Kind != StatementKind::Instruction)
    return std::nullopt;
  std::string_view Opcode = M.text(S.Text);
  std::string_view Base = opcodeBase(Opcode);
  if (Base != "bar" && Base != "barrier")
    return std::nullopt;
  if (hasModifier(Opcode, ".warp") || hasModifier(Opcode, ".cluster"))
    return std::nullopt;
  BarrierUse B;
  if (hasModifier(Opcode, ".arrive"))
    B.Op = BarrierUse::Arrive;
  else if (hasModifier(Opcode, ".red"))
    B.Op = BarrierUse::Reduce;
  B.Aligned = Base == "bar" || hasModifier(Opcode, ".aligned");
  auto Args = M.arguments(S);
  // bar.red has a destination first and the predicate operand last.
  B.IdOperand = B.Op == BarrierUse::Reduce ? 1 : 0;
  size_t CountArgs = B.Op == BarrierUse::Reduce ? 4 : 2;
  if (Args.size() <= B.IdOperand)
    return B; // malformed; ptxas rejects it, and Id stays unknown
  B.HasCount = Args.size() >= CountArgs;
  // A constant however written; an id ptxas would reject (>= 16) counts
  // as unknown, like a register.
  auto Value = evaluateConstant(M, Args[B.IdOperand]);
  if (Value && *Value < 16)
    B.Id = static_cast<uint32_t>(*Value);
  return B;
}

namespace {

/// Instructions whose first operand, if any, is one they read.
bool readsFirstOperand(std::string_view Opcode) {
  std::string_view Base = opcodeBase(Opcode);
  if ((Base == "bar" || Base == "barrier") && hasModifier(Opcode, ".red"))
    return false;
  for (std::string_view B :
       {"bra", "brx", "call", "ret", "exit", "bar", "barrier", "membar",
        "fence", "trap", "st", "red", "prefetch", "prefetchu", "nanosleep",
        "stackrestore"})
    if (Base == B)
      return true;
  return false;
}

} // namespace

std::vector<std::string_view> definedSymbols(const Module &M,
                                             const Statement &S) {
  std::vector<std::string_view> Defs;
  if (S.Kind != StatementKind::Instruction)
    return Defs;
  auto Args = M.arguments(S);
  if (Args.empty() || readsFirstOperand(M.text(S.Text)))
    return Defs;
  const Operand &First = Args[0];
  if (First.Kind != OperandKind::Symbol && First.Kind != OperandKind::Vector &&
      First.Kind != OperandKind::Binary)
    return Defs;
  forEachSymbol(M, First,
                [&](const Operand &Op) { Defs.push_back(M.text(Op.Text)); });
  return Defs;
}

bool isExit(std::string_view Opcode) {
  std::string_view Base = opcodeBase(Opcode);
  return Base == "ret" || Base == "exit";
}

bool isCall(std::string_view Opcode) { return opcodeBase(Opcode) == "call"; }

// call{.uni} [(ret),] callee [, (args)] [, prototype | targets];
const Operand *directCallee(const Module &M, const Statement &S) {
  for (const Operand &Op : M.arguments(S)) {
    if (Op.Kind == OperandKind::Paren)
      continue;
    if (Op.Kind != OperandKind::Symbol)
      return nullptr;
    std::string_view Name = M.text(Op.Text);
    return Name.starts_with('%') ? nullptr : &Op;
  }
  return nullptr;
}

std::optional<uint32_t> callArgumentList(const Module &M, const Statement &S) {
  auto Ops = M.operands(S);
  bool SeenCallee = false;
  for (uint32_t I = (S.Flags & StatementHasGuard) ? 1 : 0; I < Ops.size();
       ++I) {
    if (Ops[I].Kind == OperandKind::Symbol) {
      if (SeenCallee)
        return std::nullopt;
      SeenCallee = true;
    } else if (Ops[I].Kind == OperandKind::Paren && SeenCallee) {
      return I;
    }
  }
  return std::nullopt;
}

std::optional<BlockIndexRegister> blockIndexRegister(std::string_view Name) {
  if (Name == "%ctaid.x") return BlockIndexRegister::CtaIdX;
  if (Name == "%ctaid.y") return BlockIndexRegister::CtaIdY;
  if (Name == "%ctaid.z") return BlockIndexRegister::CtaIdZ;
  if (Name == "%nctaid.x") return BlockIndexRegister::NCtaIdX;
  if (Name == "%nctaid.y") return BlockIndexRegister::NCtaIdY;
  if (Name == "%nctaid.z") return BlockIndexRegister::NCtaIdZ;
  return std::nullopt;
}

} // namespace baton::detail
