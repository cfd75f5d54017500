//===- CallGraph.cpp - Which device functions a kernel can reach ----------===//
#include "CallGraph.h"

#include "InstructionInfo.h"
#include "baton/Transform/Linkage.h"
#include "baton/Transform/Refusal.h"

#include <algorithm>

namespace baton::detail {

using namespace ptx;

CallGraph::CallGraph(const Module &M)
    : M(M), ByName(functionsByName(M)), Nodes(M.Functions.size()),
      DefinedElsewhere(symbolDefinedElsewhere(M, isKnownSafeExternal)) {
  for (uint32_t F = 0; F < M.Functions.size(); ++F)
    scanFunction(F);
  // Initializers such as `.global .u64 table[2] = {f, g};` take addresses too.
  for (const VarDecl &D : M.Decls)
    for (const DeclaredName &N : D.Names)
      if (N.Init)
        forEachSymbol(M, M.Operands[*N.Init], [&](const Operand &Op) {
          int Callee = lookup(M.text(Op.Text));
          if (Callee >= 0)
            AddressTaken.push_back(static_cast<uint32_t>(Callee));
        });
  std::sort(AddressTaken.begin(), AddressTaken.end());
  AddressTaken.erase(std::unique(AddressTaken.begin(), AddressTaken.end()),
                     AddressTaken.end());

  // Propagate "reads the block index" backwards over calls to a fixed point.
  ReadsBlockIndex.resize(Nodes.size());
  for (uint32_t F = 0; F < Nodes.size(); ++F)
    ReadsBlockIndex[F] = Nodes[F].ReadsBlockIndexDirectly;
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (uint32_t F = 0; F < Nodes.size(); ++F) {
      if (ReadsBlockIndex[F])
        continue;
      for (uint32_t C : Nodes[F].Callees)
        if (ReadsBlockIndex[C]) {
          ReadsBlockIndex[F] = Changed = true;
          break;
        }
    }
  }
}

int CallGraph::lookup(std::string_view Name) const {
  auto It = ByName.find(Name);
  return It == ByName.end() ? -1 : static_cast<int>(It->second);
}

void CallGraph::scanFunction(uint32_t F) {
  Node &N = Nodes[F];
  for (const Statement &S : M.body(M.Functions[F])) {
    if (S.Kind != StatementKind::Instruction)
      continue;
    const Operand *Callee = nullptr;
    if (isCall(M.text(S.Text))) {
      Callee = directCallee(M, S);
      if (!Callee)
        N.HasIndirectCall = true;
      else if (int C = lookup(M.text(Callee->Text)); C >= 0)
        N.Callees.push_back(static_cast<uint32_t>(C));
    }
    for (const Operand &Op : M.arguments(S))
      forEachSymbol(M, Op, [&](const Operand &Sym) {
        std::string_view Name = M.text(Sym.Text);
        if (Name.starts_with("%ctaid") || Name.starts_with("%nctaid"))
          N.ReadsBlockIndexDirectly = true;
        else if (&Sym != Callee && !Name.starts_with('%') &&
                 !Name.starts_with('$'))
          if (int C = lookup(Name); C >= 0)
            AddressTaken.push_back(static_cast<uint32_t>(C));
      });
  }
}

bool CallGraph::isRecursive(uint32_t F) const {
  if (Recursive.size() != Nodes.size())
    Recursive.assign(Nodes.size(), 0);
  if (Recursive[F] == 0) {
    bool Taken = std::binary_search(AddressTaken.begin(), AddressTaken.end(), F);
    auto CallsF = [&](uint32_t G) {
      return std::find(Nodes[G].Callees.begin(), Nodes[G].Callees.end(), F) !=
                 Nodes[G].Callees.end() ||
             (Taken && Nodes[G].HasIndirectCall);
    };
    bool Cycle = CallsF(F);
    if (!Cycle) {
      std::vector<uint32_t> Reached = reachableFrom(F);
      Cycle = std::any_of(Reached.begin(), Reached.end(), CallsF);
    }
    Recursive[F] = Cycle ? 2 : 1;
  }
  return Recursive[F] == 2;
}

std::vector<uint32_t> CallGraph::reachableFrom(uint32_t F) const {
  if (VisitedIn.size() != Nodes.size())
    VisitedIn.assign(Nodes.size(), 0);
  ++Epoch;
  auto Seen = [&](uint32_t N) {
    bool Was = VisitedIn[N] == Epoch;
    VisitedIn[N] = Epoch;
    return Was;
  };
  std::vector<uint32_t> Order, Stack{F};
  Seen(F);
  bool AddedAddressTaken = false;
  while (!Stack.empty()) {
    uint32_t Cur = Stack.back();
    Stack.pop_back();
    if (Cur != F)
      Order.push_back(Cur);
    auto Visit = [&](uint32_t C) {
      if (!Seen(C))
        Stack.push_back(C);
    };
    for (uint32_t C : Nodes[Cur].Callees)
      Visit(C);
    if (Nodes[Cur].HasIndirectCall && !AddedAddressTaken) {
      AddedAddressTaken = true;
      for (uint32_t C : AddressTaken)
        Visit(C);
    }
  }
  return Order;
}

} // namespace baton::detail
