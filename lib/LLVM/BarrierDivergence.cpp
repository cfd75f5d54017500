//===- BarrierDivergence.cpp - May threads part before a CTA barrier? -----===//
#include "BarrierDivergence.h"

#include "InstructionInfo.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/NVPTXAddrSpace.h"

using namespace llvm;

namespace baton::ir {

namespace {

/// Special registers with one value across a CTA (of the virtual block, in
/// a variant).
bool isCtaUniformRegister(const CallBase &CB) {
  return blockIndexRegister(CB) || readsDynamicSharedSize(CB) ||
         StringRef(specialRegister(CB)).starts_with("%ntid.");
}

/// Intrinsics that compute their result from their operands alone.
bool isPureArithmetic(const CallBase &CB) {
  switch (CB.getIntrinsicID()) {
  case Intrinsic::umin:
  case Intrinsic::umax:
  case Intrinsic::smin:
  case Intrinsic::smax:
  case Intrinsic::abs:
  case Intrinsic::ctpop:
  case Intrinsic::ctlz:
  case Intrinsic::cttz:
  case Intrinsic::fshl:
  case Intrinsic::fshr:
  case Intrinsic::bswap:
  case Intrinsic::bitreverse:
    return true;
  default:
    return false;
  }
}

/// Whether \p I is uniform when its operands are. Everything else is a
/// source of values that may differ between threads.
bool uniformWithOperands(const Instruction &I) {
  // Each thread may see its own value of undef or poison, also through a
  // freeze.
  if (any_of(I.operands(), [](const Use &U) { return isa<UndefValue>(U); }))
    return false;
  if (isa<BinaryOperator, UnaryOperator, CastInst, CmpInst, SelectInst,
          GetElementPtrInst, PHINode, ExtractValueInst, InsertValueInst,
          ExtractElementInst, InsertElementInst, ShuffleVectorInst>(I))
    return true;
  if (const auto *LI = dyn_cast<LoadInst>(&I)) {
    unsigned AS = LI->getPointerAddressSpace();
    return LI->isSimple() && (AS == NVPTXAS::ADDRESS_SPACE_CONST ||
                              AS == NVPTXAS::ADDRESS_SPACE_PARAM);
  }
  if (const auto *CB = dyn_cast<CallBase>(&I))
    return isCtaUniformRegister(*CB) || isPureArithmetic(*CB);
  return false;
}

/// Values of \p F that may differ between the threads of a CTA: the sources
/// above, and everything computed from them.
DenseSet<const Value *> varyingValues(const Function &F) {
  DenseSet<const Value *> Varying;
  SmallVector<const Instruction *, 32> Work;
  for (const Instruction &I : instructions(F))
    if (!uniformWithOperands(I) && Varying.insert(&I).second)
      Work.push_back(&I);
  while (!Work.empty()) {
    const Instruction *V = Work.pop_back_val();
    for (const User *U : V->users())
      if (const auto *UI = dyn_cast<Instruction>(U);
          UI && Varying.insert(UI).second)
        Work.push_back(UI);
  }
  return Varying;
}

/// Blocks from which a full-CTA barrier can be reached, the blocks holding
/// one included.
SmallPtrSet<const BasicBlock *, 32> blocksReachingBarrier(const Function &F) {
  SmallPtrSet<const BasicBlock *, 32> Reaching;
  SmallVector<const BasicBlock *, 32> Work;
  for (const Instruction &I : instructions(F))
    if (const auto *CB = dyn_cast<CallBase>(&I))
      if (auto B = classifyBarrier(*CB); B && B->isFullCtaSync() &&
                                          Reaching.insert(I.getParent()).second)
        Work.push_back(I.getParent());
  while (!Work.empty())
    for (const BasicBlock *Pred : predecessors(Work.pop_back_val()))
      if (Reaching.insert(Pred).second)
        Work.push_back(Pred);
  return Reaching;
}

} // namespace

bool threadsMayPartBeforeBarrier(const Function &Kernel) {
  SmallPtrSet<const BasicBlock *, 32> Reaching = blocksReachingBarrier(Kernel);
  if (Reaching.empty())
    return false;
  DenseSet<const Value *> Varying = varyingValues(Kernel);
  for (const BasicBlock &BB : Kernel) {
    const Instruction *T = BB.getTerminator();
    if (!T || T->getNumSuccessors() < 2 ||
        none_of(successors(&BB),
                [&](const BasicBlock *S) { return Reaching.contains(S); }))
      continue;
    const Value *Condition = nullptr;
    if (const auto *Br = dyn_cast<BranchInst>(T))
      Condition = Br->getCondition();
    else if (const auto *Sw = dyn_cast<SwitchInst>(T))
      Condition = Sw->getCondition();
    else
      return true; // indirectbr, callbr, invoke: not followed
    if (Varying.contains(Condition))
      return true;
  }
  return false;
}

} // namespace baton::ir
