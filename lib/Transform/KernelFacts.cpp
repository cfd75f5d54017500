//===- KernelFacts.cpp - What a scheduler needs ---------------------------===//
#include "baton/Transform/KernelFacts.h"

#include "InstructionInfo.h"

#include <unordered_map>

namespace baton {

using namespace ptx;
using namespace detail;

namespace {

/// Bytes of one element of a declaration: type size times vector width.
uint64_t elementBytes(const Module &M, const VarDecl &D) {
  uint64_t Size = 1, Width = 1;
  for (TextRef Q : D.Qualifiers) {
    std::string_view T = M.text(Q);
    if (T == ".v2") Width = 2;
    else if (T == ".v4") Width = 4;
    else if (T == ".v8") Width = 8;
    else if (T.size() >= 3 && T[0] == '.' &&
             (T[1] == 'b' || T[1] == 'u' || T[1] == 's' || T[1] == 'f')) {
      std::string_view Bits = T.substr(2);
      if (size_t X = Bits.find('x'); X != std::string_view::npos)
        Bits = Bits.substr(0, X); // .f16x2
      if (auto N = parseIntegerLiteral(Bits))
        Size = *N / 8 ? *N / 8 : 1;
      if (T.ends_with("x2")) Size *= 2;
    }
  }
  return Size * Width;
}

/// Elements declared by a name's suffix: "[4][8]" is 32, "<10>" is 10, ""
/// is 1, and "[]" (extern shared) is 0.
uint64_t elementCount(const Module &M, const DeclaredName &N, bool &Unsized) {
  std::string_view S = M.text(N.Suffix);
  Unsized = S == "[]";
  uint64_t Count = 1;
  size_t Pos = 0;
  while ((Pos = S.find_first_of("[<", Pos)) != std::string_view::npos) {
    size_t End = S.find_first_of("]>", Pos);
    if (End == std::string_view::npos)
      break;
    auto V = parseIntegerLiteral(S.substr(Pos + 1, End - Pos - 1));
    Count = V ? Count * *V : 0;
    Pos = End;
  }
  return Count;
}

std::optional<uint32_t> directiveValue(const Module &M, const Function &K,
                                       std::string_view Name, size_t I = 0) {
  for (const FunctionDirective &D : K.Directives)
    if (M.text(D.Name) == Name && I < D.Values.size())
      if (auto V = parseIntegerLiteral(M.text(D.Values[I])))
        return static_cast<uint32_t>(*V);
  return std::nullopt;
}

std::optional<std::array<uint32_t, 3>> dims(const Module &M, const Function &K,
                                            std::string_view Name) {
  auto X = directiveValue(M, K, Name);
  if (!X)
    return std::nullopt;
  return std::array<uint32_t, 3>{*X, directiveValue(M, K, Name, 1).value_or(1),
                                 directiveValue(M, K, Name, 2).value_or(1)};
}

void countInstruction(const Module &M, const Statement &S, KernelFacts &F) {
  std::string_view Op = M.text(S.Text);
  std::string_view Base = opcodeBase(Op);
  ++F.Instructions;
  if (classifyBarrier(M, S))
    ++F.Barriers;
  if (Base == "call")
    ++F.Calls;
  if (Base == "wgmma" || Base == "mma" ||
      ((Base == "wmma" || Base == "tcgen05") && hasModifier(Op, ".mma")))
    ++F.TensorCoreOps;
  if (Base == "cp" && hasModifier(Op, ".async"))
    ++F.AsyncCopyOps;
  bool Memory = Base == "ld" || Base == "st" || Base == "atom" ||
                Base == "red" || Base == "cp" || Base == "ldu" ||
                Base == "prefetch";
  if (!Memory)
    return;
  if (Op.find(".global") != std::string_view::npos)
    ++F.GlobalMemoryOps;
  if (Op.find(".shared") != std::string_view::npos)
    ++F.SharedMemoryOps;
}

} // namespace

KernelFactsAnalysis::KernelFactsAnalysis(const Module &M) : M(M) {
  // Module-scope .shared variables count if the kernel or a callee names them.
  for (const Item &I : M.Items)
    if (I.Kind == ItemKind::Variable &&
        M.text(M.Decls[I.Index].Space) == ".shared")
      for (const DeclaredName &N : M.Decls[I.Index].Names)
        ModuleShared.emplace(M.text(N.Name), I.Index);
}

KernelFacts KernelFactsAnalysis::compute(
    const Function &K, std::span<const uint32_t> Reachable) const {
  KernelFacts F;
  F.ReqNTid = dims(M, K, ".reqntid");
  F.MaxNTid = dims(M, K, ".maxntid");
  F.MinNCtaPerSm = directiveValue(M, K, ".minnctapersm");
  F.MaxNReg = directiveValue(M, K, ".maxnreg");

  std::unordered_map<std::string_view, bool> SharedCounted;
  auto AddShared = [&](const VarDecl &D, const DeclaredName &N) {
    bool Unsized = false;
    uint64_t Count = elementCount(M, N, Unsized);
    F.UsesDynamicSharedMemory |= Unsized;
    F.StaticSharedBytes += Count * elementBytes(M, D);
  };

  auto Scan = [&](const Function &Fn, bool IsKernel) {
    for (const Statement &S : M.body(Fn)) {
      if (S.Kind == StatementKind::Decl) {
        const VarDecl &D = M.Decls[S.First];
        std::string_view Space = M.text(D.Space);
        for (const DeclaredName &N : D.Names) {
          bool Unsized = false;
          if (Space == ".reg" && IsKernel)
            F.RegistersDeclared +=
                static_cast<uint32_t>(elementCount(M, N, Unsized));
          else if (Space == ".shared")
            AddShared(D, N);
          else if (Space == ".local")
            F.LocalBytes += elementCount(M, N, Unsized) * elementBytes(M, D);
        }
        continue;
      }
      if (S.Kind != StatementKind::Instruction)
        continue;
      countInstruction(M, S, F);
      for (const Operand &Op : M.arguments(S))
        forEachSymbol(M, Op, [&](const Operand &Sym) {
          auto It = ModuleShared.find(M.text(Sym.Text));
          if (It == ModuleShared.end() || SharedCounted[It->first])
            return;
          SharedCounted[It->first] = true;
          const VarDecl &D = M.Decls[It->second];
          for (const DeclaredName &N : D.Names)
            if (M.text(N.Name) == It->first)
              AddShared(D, N);
        });
    }
  };
  Scan(K, true);
  for (uint32_t C : Reachable)
    Scan(M.Functions[C], false);
  return F;
}

} // namespace baton
