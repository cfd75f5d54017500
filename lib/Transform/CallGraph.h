//===- CallGraph.h - Which device functions a kernel can reach ------------===//
//
// Direct calls name their callee; an indirect call (through a register, with
// a .callprototype) may reach any function whose address the module takes.
// The graph also records which functions read the block index, directly or
// through their callees: those need a clone that receives the virtual one.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_TRANSFORM_CALLGRAPH_H
#define BATON_LIB_TRANSFORM_CALLGRAPH_H

#include "baton/PTX/AST.h"

#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace baton::detail {

class CallGraph {
public:
  explicit CallGraph(const ptx::Module &M);

  /// Function index of the definition (or, failing that, the declaration)
  /// named Name, or of the function a `.alias` of that name stands for; -1
  /// if the module has none.
  int lookup(std::string_view Name) const;

  /// Functions reachable from F through calls, F excluded, in DFS order.
  std::vector<uint32_t> reachableFrom(uint32_t F) const;

  /// True if F can call itself, through other functions or indirect calls.
  bool isRecursive(uint32_t F) const;

  /// True if F reads %ctaid/%nctaid itself or through a callee.
  bool readsBlockIndex(uint32_t F) const { return ReadsBlockIndex[F]; }
  bool hasIndirectCall(uint32_t F) const { return Nodes[F].HasIndirectCall; }
  const std::vector<uint32_t> &addressTaken() const { return AddressTaken; }
  /// A symbol the module leaves to code it is linked with, where an
  /// indirect call may lead (baton::symbolDefinedElsewhere; the known-safe
  /// externals of Refusal.h aside); nullopt for a whole program.
  std::optional<std::string_view> definedElsewhere() const {
    return DefinedElsewhere;
  }

private:
  struct Node {
    std::vector<uint32_t> Callees;
    bool HasIndirectCall = false;
    bool ReadsBlockIndexDirectly = false;
  };
  void scanFunction(uint32_t F);

  const ptx::Module &M;
  std::unordered_map<std::string_view, uint32_t> ByName;
  std::vector<Node> Nodes;
  std::vector<uint32_t> AddressTaken;
  std::vector<bool> ReadsBlockIndex;
  std::optional<std::string_view> DefinedElsewhere;
  // Visit marks for reachableFrom, stamped with a fresh epoch per query so a
  // query costs what it visits, not the size of the module.
  mutable std::vector<uint32_t> VisitedIn;
  mutable uint32_t Epoch = 0;
  // isRecursive's answers: 0 not asked yet, 1 no, 2 yes.
  mutable std::vector<uint8_t> Recursive;
};

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_CALLGRAPH_H
