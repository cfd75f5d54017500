//===- CallGraph.cpp - Which functions a kernel can reach -----------------===//
#include "CallGraph.h"

#include "InstructionInfo.h"

#include "llvm/IR/InstIterator.h"

using namespace llvm;

namespace baton::ir {

CallGraph::CallGraph(Module &M) {
  constexpr unsigned SharedAddressSpace = 3; // NVPTX's
  for (GlobalVariable &G : M.globals())
    if (G.isDeclaration() && G.getAddressSpace() != SharedAddressSpace &&
        !isCudaBuiltinVariable(G))
      DeclaredElsewhere.push_back(&G);
  for (Function &F : M) {
    if (F.isDeclaration()) {
      if (F.isIntrinsic())
        continue;
      DeclaredElsewhere.push_back(&F);
      if (F.hasAddressTaken(nullptr, /*IgnoreCallbackUses=*/false,
                            /*IgnoreAssumeLikeCalls=*/true,
                            /*IgnoreLLVMUsed=*/true,
                            /*IgnoreARCAttachedCall=*/false,
                            /*IgnoreCastedDirectCall=*/true))
        DeclaredAddressTaken.push_back(&F);
      continue;
    }
    if (F.hasAddressTaken(nullptr, /*IgnoreCallbackUses=*/false,
                          /*IgnoreAssumeLikeCalls=*/true,
                          /*IgnoreLLVMUsed=*/true))
      AddressTaken.push_back(&F);
    auto &Out = Callees[&F];
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      if (blockIndexRegister(*CB))
        Readers.insert(&F);
      if (CB->isInlineAsm())
        continue;
      Function *Callee = calledFunction(*CB);
      if (!Callee)
        CallsIndirectly.insert(&F);
      else if (!Callee->isDeclaration() && !is_contained(Out, Callee))
        Out.push_back(Callee);
    }
  }
  // Readers of the block index, closed over direct callers.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[F, Out] : Callees)
      if (!Readers.contains(F) &&
          any_of(Out, [&](Function *C) { return Readers.contains(C); }))
        Changed = Readers.insert(F).second;
  }
}

bool CallGraph::isRecursive(const Function &F) const {
  if (auto It = Recursive.find(&F); It != Recursive.end())
    return It->second;
  bool Taken = is_contained(AddressTaken, &F);
  auto CallsF = [&](const Function *G) {
    auto It = Callees.find(G);
    return (It != Callees.end() && is_contained(It->second, &F)) ||
           (Taken && CallsIndirectly.contains(G));
  };
  bool Cycle = CallsF(&F) || any_of(reachableFrom(F), CallsF);
  Recursive[&F] = Cycle;
  return Cycle;
}

std::vector<Function *> CallGraph::reachableFrom(const Function &Root) const {
  std::vector<Function *> Order;
  DenseSet<const Function *> Seen = {&Root};
  SmallVector<const Function *, 8> Work = {&Root};
  auto Visit = [&](Function *F) {
    if (Seen.insert(F).second) {
      Order.push_back(F);
      Work.push_back(F);
    }
  };
  while (!Work.empty()) {
    const Function *F = Work.pop_back_val();
    auto It = Callees.find(F);
    if (It != Callees.end())
      for (Function *C : It->second)
        Visit(C);
    if (CallsIndirectly.contains(F))
      for (Function *C : AddressTaken)
        Visit(C);
  }
  return Order;
}

} // namespace baton::ir
