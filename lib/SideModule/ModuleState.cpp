//===- ModuleState.cpp - Kernels that use module-scope variables ----------===//
#include "ModuleState.h"

#include "baton/Transform/Linkage.h"

#include <functional>
#include <unordered_map>
#include <vector>

using namespace baton;
using namespace baton::ptx;

namespace {

struct StateUse {
  std::string Variable;
  std::string Space;
  uint32_t Line = 0;
};

struct FunctionScan {
  std::optional<StateUse> Use; ///< the first use in the body
  std::vector<uint32_t> Referenced; ///< functions called or address-taken
};

bool isToolkitTable(std::string_view Name, const DeclaredName &N) {
  return Name.starts_with("__cudart_") && N.Init.has_value();
}

void forEachSymbol(const Module &M, const Operand &Op,
                   const std::function<void(const Operand &)> &Visit) {
  if (Op.Kind == OperandKind::Symbol)
    Visit(Op);
  for (const Operand &Child : M.children(Op))
    forEachSymbol(M, Child, Visit);
}

} // namespace

std::map<std::string, std::string>
baton::side::kernelsUsingModuleState(const Module &M) {
  std::unordered_map<std::string_view, std::string_view> StateSpaceOf;
  for (const Item &I : M.Items) {
    if (I.Kind != ItemKind::Variable)
      continue;
    const VarDecl &D = M.Decls[I.Index];
    std::string_view Space = M.text(D.Space);
    if (Space != ".global" && Space != ".const" && Space != ".tex")
      continue;
    for (const DeclaredName &N : D.Names)
      if (!isToolkitTable(M.text(N.Name), N))
        StateSpaceOf.emplace(M.text(N.Name), Space);
  }
  // A call names a declaration, an alias or the definition: follow each to
  // the body that runs.
  std::unordered_map<std::string_view, uint32_t> FunctionIndex =
      functionsByName(M);

  std::vector<FunctionScan> Scans(M.Functions.size());
  for (uint32_t F = 0; F < M.Functions.size(); ++F) {
    FunctionScan &Scan = Scans[F];
    for (const Statement &S : M.body(M.Functions[F])) {
      if (S.Kind != StatementKind::Instruction)
        continue;
      for (const Operand &Op : M.operands(S))
        forEachSymbol(M, Op, [&](const Operand &Sym) {
          std::string_view Name = M.text(Sym.Text);
          if (auto It = StateSpaceOf.find(Name);
              It != StateSpaceOf.end() && !Scan.Use)
            Scan.Use = StateUse{std::string(Name), std::string(It->second),
                                M.lineOf(Sym.Text)};
          if (auto It = FunctionIndex.find(Name); It != FunctionIndex.end())
            Scan.Referenced.push_back(It->second);
        });
    }
  }

  std::map<std::string, std::string> Result;
  for (uint32_t K = 0; K < M.Functions.size(); ++K) {
    if (!M.Functions[K].IsEntry)
      continue;
    std::vector<bool> Seen(M.Functions.size());
    std::vector<uint32_t> Work = {K};
    Seen[K] = true;
    std::optional<StateUse> Found;
    std::string Via;
    while (!Work.empty() && !Found) {
      uint32_t F = Work.back();
      Work.pop_back();
      if (Scans[F].Use) {
        Found = Scans[F].Use;
        if (F != K)
          Via = std::string(M.text(M.Functions[F].Name));
      }
      for (uint32_t Callee : Scans[F].Referenced)
        if (!Seen[Callee]) {
          Seen[Callee] = true;
          Work.push_back(Callee);
        }
    }
    if (!Found)
      continue;
    std::string Message = "uses module-scope " + Found->Space +
                          " variable '" + Found->Variable + "'";
    if (!Via.empty())
      Message += " in " + Via;
    Message += " (PTX line " + std::to_string(Found->Line) +
               "), whose copy in the side module the program does not see";
    Result.emplace(std::string(M.text(M.Functions[K].Name)), Message);
  }
  return Result;
}
