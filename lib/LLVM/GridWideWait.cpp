//===- GridWideWait.cpp - Grid-wide barriers written by hand, in IR -------===//
#include "GridWideWait.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

#include <vector>

namespace baton::ir {

using namespace llvm;

namespace {

enum Taint : uint8_t { Polled = 1, GridSize = 2 };

bool inGlobalOrGenericSpace(const Value *Pointer) {
  unsigned Space = Pointer->getType()->getPointerAddressSpace();
  return Space == 0 || Space == 1;
}

/// What the value \p V is computed from: memory another block's write can
/// change between two executions (Polled), and the grid size (GridSize).
uint8_t taintOf(const Value *V) {
  uint8_t T = 0;
  SmallPtrSet<const Value *, 32> Seen;
  std::vector<const Value *> Work{V};
  while (!Work.empty() && T != (Polled | GridSize)) {
    const Value *Cur = Work.back();
    Work.pop_back();
    if (!Seen.insert(Cur).second)
      continue;
    if (auto *Load = dyn_cast<LoadInst>(Cur)) {
      if ((Load->isVolatile() || Load->isAtomic()) &&
          inGlobalOrGenericSpace(Load->getPointerOperand()))
        T |= Polled;
      continue; // the address says nothing of the value
    }
    if (auto *RMW = dyn_cast<AtomicRMWInst>(Cur)) {
      if (inGlobalOrGenericSpace(RMW->getPointerOperand()))
        T |= Polled;
      continue;
    }
    if (auto *CAS = dyn_cast<AtomicCmpXchgInst>(Cur)) {
      if (inGlobalOrGenericSpace(CAS->getPointerOperand()))
        T |= Polled;
      continue;
    }
    if (auto *II = dyn_cast<IntrinsicInst>(Cur)) {
      switch (II->getIntrinsicID()) {
      case Intrinsic::nvvm_read_ptx_sreg_nctaid_x:
      case Intrinsic::nvvm_read_ptx_sreg_nctaid_y:
      case Intrinsic::nvvm_read_ptx_sreg_nctaid_z:
        T |= GridSize;
        continue;
      default:
        break;
      }
    }
    if (isa<CallBase>(Cur))
      continue; // a call's result is not followed
    if (auto *I = dyn_cast<Instruction>(Cur))
      for (const Value *Op : I->operands())
        if (isa<Instruction>(Op))
          Work.push_back(Op);
  }
  return T;
}

} // namespace

const Instruction *findGridWideWait(Function &F) {
  if (F.isDeclaration())
    return nullptr;
  DominatorTree DT(F);
  LoopInfo LI(DT);
  for (Loop *L : LI.getLoopsInPreorder()) {
    SmallVector<BasicBlock *, 4> Exiting;
    L->getExitingBlocks(Exiting);
    for (BasicBlock *BB : Exiting) {
      auto *Br = dyn_cast<BranchInst>(BB->getTerminator());
      if (Br && Br->isConditional() &&
          taintOf(Br->getCondition()) == (Polled | GridSize))
        return Br;
    }
  }
  return nullptr;
}

} // namespace baton::ir
