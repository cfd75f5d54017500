//===- CallGraph.h - Which functions a kernel can reach -------------------===//
//
// The IR twin of lib/Transform/CallGraph.h: direct calls, plus every
// address-taken function behind an indirect call, and which functions read
// the block index (themselves or through direct callees).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_CALLGRAPH_H
#define BATON_LIB_LLVM_CALLGRAPH_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Module.h"

#include <vector>

namespace baton::ir {

class CallGraph {
public:
  explicit CallGraph(llvm::Module &M);
  /// Defined functions F can call, F excluded, in the order first reached.
  std::vector<llvm::Function *> reachableFrom(const llvm::Function &F) const;
  /// F can call itself, through other functions or indirect calls.
  bool isRecursive(const llvm::Function &F) const;
  /// F reads %ctaid/%nctaid itself or through the functions it calls.
  bool readsBlockIndex(const llvm::Function &F) const {
    return Readers.contains(&F);
  }
  /// Defined functions whose address is taken (indirect call targets).
  llvm::ArrayRef<llvm::Function *> addressTaken() const { return AddressTaken; }
  /// Functions declared but not defined here (intrinsics aside) whose
  /// address is taken: indirect call targets whose bodies are elsewhere. A
  /// call whose type differs from the declaration's does not count.
  llvm::ArrayRef<llvm::Function *> declaredAddressTaken() const {
    return DeclaredAddressTaken;
  }
  /// Symbols declared here for another module to define: functions
  /// (intrinsics aside) and global variables outside shared memory, where
  /// an external array only sizes dynamic shared memory. In a module linked
  /// with others, an indirect call may reach their code.
  llvm::ArrayRef<const llvm::GlobalValue *> declaredElsewhere() const {
    return DeclaredElsewhere;
  }

private:
  llvm::DenseMap<const llvm::Function *, llvm::SmallVector<llvm::Function *, 4>>
      Callees;
  llvm::DenseSet<const llvm::Function *> CallsIndirectly;
  llvm::SmallVector<llvm::Function *, 4> AddressTaken;
  llvm::SmallVector<llvm::Function *, 4> DeclaredAddressTaken;
  llvm::SmallVector<const llvm::GlobalValue *, 4> DeclaredElsewhere;
  llvm::DenseSet<const llvm::Function *> Readers;
  mutable llvm::DenseMap<const llvm::Function *, bool> Recursive;
};

} // namespace baton::ir

#endif // BATON_LIB_LLVM_CALLGRAPH_H
