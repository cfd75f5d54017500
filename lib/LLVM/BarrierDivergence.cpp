//===- BarrierDivergence.cpp - May threads part before a CTA barrier? -----===//
#include "BarrierDivergence.h"

#include "InstructionInfo.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/PostDominators.h"
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

/// A barrier every thread of the CTA must reach together: a full-CTA sync,
/// or a reduction (whose value needs every thread's vote).
bool isCtaBarrier(const BarrierUse &B) {
  return B.isFullCtaSync() || B.Op == BarrierUse::Reduce;
}

/// A reduction barrier of the whole CTA: its result is the CTA's, the same
/// in every thread whatever each one votes. (With a thread count, each
/// group of that many threads gets its own.)
bool isCtaReduction(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  auto B = CB ? classifyBarrier(*CB) : std::nullopt;
  return B && B->Op == BarrierUse::Reduce && !B->HasCount;
}

/// The divergence of one kernel: which values may differ between the
/// threads of a CTA, and where they may part.
class Divergence {
public:
  explicit Divergence(const Function &F)
      : F(F), PDT(const_cast<Function &>(F)) {
    findVaryingValues();
  }

  /// Whether threads that take different ways at \p B's terminator still
  /// run the same barriers and exits: the blocks before its immediate
  /// post-dominator hold no CTA barrier and no exit, so they meet again
  /// there, having run no barrier and left nowhere.
  bool rejoinsCleanly(const BasicBlock *B) {
    for (const BasicBlock *BB : regionOf(B, joinOf(B)))
      for (const Instruction &I : *BB)
        if (isa<ReturnInst, UnreachableInst>(I) || endsOrWaits(I))
          return false;
    return !OverBudget;
  }

  /// Whether \p T chooses its way by a value that may differ between
  /// threads; true for terminators that are not followed, and for all
  /// once the analysis ran over its budget.
  bool branchesOnVarying(const Instruction &T) const {
    if (OverBudget)
      return true;
    if (const auto *Br = dyn_cast<BranchInst>(&T))
      return Br->isConditional() && Varying.contains(Br->getCondition());
    if (const auto *Sw = dyn_cast<SwitchInst>(&T))
      return Varying.contains(Sw->getCondition());
    return true; // indirectbr, callbr, invoke
  }

private:
  /// Blocks visited over all regions before the analysis gives up (answers
  /// "may part" everywhere): bounds the time spent on very large kernels,
  /// whose regions it would otherwise walk once per varying branch.
  static constexpr uint64_t MaxSteps = 20'000'000;

  /// The blocks between a conditional terminator's block \p B and \p Join,
  /// its immediate post-dominator (null: the function's exit): those
  /// reachable from B's successors without passing Join. Threads that part
  /// at B run different blocks of it and meet again at Join, if at all.
  SmallVector<const BasicBlock *, 16> regionOf(const BasicBlock *B,
                                               const BasicBlock *Join) {
    SmallPtrSet<const BasicBlock *, 16> Seen;
    SmallVector<const BasicBlock *, 16> Region,
        Work(succ_begin(B), succ_end(B));
    while (!Work.empty() && !OverBudget) {
      const BasicBlock *BB = Work.pop_back_val();
      if (BB == Join || !Seen.insert(BB).second)
        continue;
      Region.push_back(BB);
      append_range(Work, successors(BB));
      OverBudget = ++Steps > MaxSteps;
    }
    return Region;
  }

  static bool endsOrWaits(const Instruction &I) {
    const auto *CB = dyn_cast<CallBase>(&I);
    if (!CB)
      return false;
    auto B = classifyBarrier(*CB);
    return isExit(*CB) || (B && isCtaBarrier(*B));
  }

  const BasicBlock *joinOf(const BasicBlock *B) const {
    const DomTreeNode *N = PDT.getNode(B);
    const DomTreeNode *Up = N ? N->getIDom() : nullptr;
    return Up ? Up->getBlock() : nullptr;
  }

  /// The sources above and everything computed from them (data
  /// dependence), and, to a fixed point, everything defined between a
  /// varying branch and its immediate post-dominator, with the post-
  /// dominator's phis (sync dependence: after the join a value holds
  /// whichever path's definition a thread took, or, out of a loop that
  /// threads leave at different trips, the trip it left at).
  void findVaryingValues() {
    SmallVector<const Instruction *, 32> Work;
    auto Mark = [&](const Instruction &I) {
      if (!isCtaReduction(I) && Varying.insert(&I).second)
        Work.push_back(&I);
    };
    for (const Instruction &I : instructions(F))
      if (!uniformWithOperands(I))
        Mark(I);
    SmallPtrSet<const BasicBlock *, 16> Expanded;
    for (bool Changed = true; Changed && !OverBudget;) {
      while (!Work.empty())
        for (const User *U : Work.pop_back_val()->users())
          if (const auto *UI = dyn_cast<Instruction>(U))
            Mark(*UI);
      Changed = false;
      for (const BasicBlock &BB : F) {
        const Instruction *T = BB.getTerminator();
        if (!T || T->getNumSuccessors() < 2 || Expanded.contains(&BB) ||
            !branchesOnVarying(*T))
          continue;
        Expanded.insert(&BB);
        const BasicBlock *Join = joinOf(&BB);
        for (const BasicBlock *R : regionOf(&BB, Join))
          for (const Instruction &I : *R)
            Mark(I);
        if (Join)
          for (const PHINode &Phi : Join->phis())
            Mark(Phi);
        Changed = true;
      }
    }
  }

  const Function &F;
  PostDominatorTree PDT;
  DenseSet<const Value *> Varying;
  uint64_t Steps = 0;
  bool OverBudget = false;
};

/// Blocks from which one of \p Targets can be reached, the blocks holding
/// one included.
SmallPtrSet<const BasicBlock *, 32>
blocksReachingBarrier(const Function &F, BarrierTargets Targets) {
  auto IsTarget = [&](const BarrierUse &B) {
    return Targets == BarrierTargets::AnyCtaBarrier
               ? isCtaBarrier(B)
               : B.Op == BarrierUse::Reduce;
  };
  SmallPtrSet<const BasicBlock *, 32> Reaching;
  SmallVector<const BasicBlock *, 32> Work;
  for (const Instruction &I : instructions(F))
    if (const auto *CB = dyn_cast<CallBase>(&I))
      if (auto B = classifyBarrier(*CB);
          B && IsTarget(*B) && Reaching.insert(I.getParent()).second)
        Work.push_back(I.getParent());
  while (!Work.empty())
    for (const BasicBlock *Pred : predecessors(Work.pop_back_val()))
      if (Reaching.insert(Pred).second)
        Work.push_back(Pred);
  return Reaching;
}

} // namespace

const Instruction *threadsMayPartBeforeBarrier(const Function &Kernel,
                                               BarrierTargets Targets) {
  SmallPtrSet<const BasicBlock *, 32> Reaching =
      blocksReachingBarrier(Kernel, Targets);
  if (Reaching.empty())
    return nullptr;
  Divergence D(Kernel);
  for (const BasicBlock &BB : Kernel) {
    const Instruction *T = BB.getTerminator();
    if (!T || T->getNumSuccessors() < 2 ||
        none_of(successors(&BB),
                [&](const BasicBlock *S) { return Reaching.contains(S); }))
      continue;
    if (D.branchesOnVarying(*T) &&
        !(isa<BranchInst, SwitchInst>(T) && D.rejoinsCleanly(&BB)))
      return T;
  }
  return nullptr;
}

} // namespace baton::ir
