//===- GridWideWait.cpp - Grid-wide barriers written by hand, in IR -------===//
#include "GridWideWait.h"

#include "InstructionInfo.h"
#include "baton/Transform/Refusal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

#include <vector>

namespace baton::ir {

using namespace llvm;

namespace {

bool inGlobalOrGenericSpace(const Value *Pointer) {
  unsigned Space = Pointer->getType()->getPointerAddressSpace();
  return Space == 0 || Space == 1;
}

/// A read of %nctaid.x, .y or .z (block-index registers 3-5).
bool isGridSize(const Value *V) {
  auto *CB = dyn_cast<CallBase>(V);
  return CB && blockIndexRegister(*CB).value_or(0) >= 3;
}

/// A read of global memory that another block's write can change between
/// two executions, and that changes nothing itself: a volatile or atomic
/// load, an atomic that leaves the word as it was (add 0, or 0, and -1, a
/// compare-and-swap that writes what it compares with), or inline PTX that
/// loads with ld.volatile, ld.relaxed or ld.acquire (libcu++'s atomics) or
/// past the L1 with ld.cg or ld.cv (__ldcg, __ldcv).
bool pollsMemory(const Value *V) {
  if (auto *Load = dyn_cast<LoadInst>(V))
    return (Load->isVolatile() || Load->isAtomic()) &&
           inGlobalOrGenericSpace(Load->getPointerOperand());
  if (auto *RMW = dyn_cast<AtomicRMWInst>(V)) {
    if (!inGlobalOrGenericSpace(RMW->getPointerOperand()))
      return false;
    auto *C = dyn_cast<ConstantInt>(RMW->getValOperand());
    switch (RMW->getOperation()) {
    case AtomicRMWInst::Add:
    case AtomicRMWInst::Sub:
    case AtomicRMWInst::Or:
    case AtomicRMWInst::Xor:
      return C && C->isZero();
    case AtomicRMWInst::And:
      return C && C->isMinusOne();
    default:
      return false;
    }
  }
  if (auto *CAS = dyn_cast<AtomicCmpXchgInst>(V))
    return inGlobalOrGenericSpace(CAS->getPointerOperand()) &&
           CAS->getCompareOperand() == CAS->getNewValOperand();
  if (auto *Call = dyn_cast<CallBase>(V)) {
    StringRef Text = inlineAsmText(*Call);
    return Text.contains("ld.") && !Text.contains("shared") &&
           (Text.contains(".volatile") || Text.contains(".relaxed") ||
            Text.contains(".acquire") || Text.contains(".cg.") ||
            Text.contains(".cv."));
  }
  return false;
}

/// The pointer a read of memory (a load, or pollsMemory's atomics and
/// inline PTX) reads, casts stripped; for inline PTX its one pointer
/// argument, nullptr if it has none or several.
const Value *polledPointer(const Value *V) {
  const Value *P = nullptr;
  if (auto *Load = dyn_cast<LoadInst>(V))
    P = Load->getPointerOperand();
  else if (auto *RMW = dyn_cast<AtomicRMWInst>(V))
    P = RMW->getPointerOperand();
  else if (auto *CAS = dyn_cast<AtomicCmpXchgInst>(V))
    P = CAS->getPointerOperand();
  else if (auto *Call = dyn_cast<CallBase>(V); Call && Call->isInlineAsm())
    for (const Value *Arg : Call->args())
      if (Arg->getType()->isPointerTy()) {
        if (P)
          return nullptr;
        P = Arg;
      }
  return P ? P->stripPointerCasts() : nullptr;
}

/// Inline PTX of one atomic, reduction or store of global or generic
/// memory with one pointer and one value argument, as libcu++'s
/// cuda::atomic_ref writes them (`atom.add.acq_rel.gpu.u32 $0,[$1],$2;`,
/// `st.relaxed.gpu.b32 [$0],$1;`), and CUTLASS its barriers' arrivals
/// (`red.relaxed.gpu.global.add.s32 [$0],$1;`).
struct AsmMemoryOp {
  SmallVector<StringRef, 6> Qualifiers; ///< "atom", "add", "acq_rel", ...
  const Value *Pointer = nullptr;       ///< casts stripped
  const Value *Operand = nullptr;
  bool has(StringRef Q) const { return is_contained(Qualifiers, Q); }
};

std::optional<AsmMemoryOp> asmMemoryOp(const Value *V) {
  auto *Call = dyn_cast<CallInst>(V);
  if (!Call || !Call->isInlineAsm())
    return std::nullopt;
  StringRef Text = asmSingleInstruction(*Call);
  if (Text.empty())
    return std::nullopt;
  AsmMemoryOp Op;
  Text.take_until([](char C) { return C == ' ' || C == '\t'; })
      .split(Op.Qualifiers, '.');
  if ((Op.Qualifiers[0] != "atom" && Op.Qualifiers[0] != "red" &&
       Op.Qualifiers[0] != "st") ||
      Op.has("shared") || Op.has("local") || Op.has("param"))
    return std::nullopt;
  for (const Value *Arg : Call->args()) {
    const Value *&Slot =
        Arg->getType()->isPointerTy() ? Op.Pointer : Op.Operand;
    if (Slot)
      return std::nullopt;
    Slot = Arg;
  }
  if (!Op.Pointer || !Op.Operand)
    return std::nullopt;
  Op.Pointer = Op.Pointer->stripPointerCasts();
  return Op;
}

/// An atomic that counts a block's arrival: an add, sub, inc or dec of
/// global memory that changes the word (not a poll), as an atomicrmw or as
/// inline PTX (asmMemoryOp).
bool countsArrival(const Value *V) {
  if (auto Op = asmMemoryOp(V)) {
    auto *C = dyn_cast<ConstantInt>(Op->Operand);
    return (Op->has("atom") || Op->has("red")) && !(C && C->isZero()) &&
           (Op->has("add") || Op->has("sub") || Op->has("inc") ||
            Op->has("dec"));
  }
  auto *RMW = dyn_cast<AtomicRMWInst>(V);
  if (!RMW || !inGlobalOrGenericSpace(RMW->getPointerOperand()) ||
      pollsMemory(RMW))
    return false;
  switch (RMW->getOperation()) {
  case AtomicRMWInst::Add:
  case AtomicRMWInst::Sub:
  case AtomicRMWInst::UIncWrap:
  case AtomicRMWInst::UDecWrap:
    return true;
  default:
    return false;
  }
}

class WaitFinder {
public:
  explicit WaitFinder(Function &F) : F(F) {}

  std::optional<GridWideWait> find() {
    for (Instruction &I : instructions(F))
      if (countsArrival(&I) && polledPointer(&I))
        Arrivals.push_back(&I);
    bool GridSize = readsGridSize();
    if (!GridSize && Arrivals.empty())
      return std::nullopt;
    HasArrivalTest =
        GridSize && (comparesArrivalWithGrid() || comparesResetCount());
    DominatorTree DT(F);
    LoopInfo LI(DT);
    for (Loop *L : LI.getLoopsInPreorder()) {
      SmallVector<BasicBlock *, 4> Exiting;
      L->getExitingBlocks(Exiting);
      for (BasicBlock *BB : Exiting) {
        auto *Br = dyn_cast<BranchInst>(BB->getTerminator());
        if (!Br || !Br->isConditional())
          continue;
        if (auto Message = waits(Br->getCondition(), *L))
          return GridWideWait{Br, *Message};
        if (countsThenWaits(*Br, *L, DT))
          return GridWideWait{Br, CountWaitMessage};
      }
    }
    return std::nullopt;
  }

private:
  bool readsGridSize() const {
    for (const BasicBlock &BB : F)
      for (const Instruction &I : BB)
        if (isGridSize(&I))
          return true;
    return false;
  }

  /// What derived() follows a value back to.
  enum class Origin { GridSize, Arrival, ResetCount };

  /// Whether V is computed from %nctaid (Origin::GridSize: through
  /// arithmetic, phis and the values atomics add, exchange or store; not a
  /// load's address, not the wrap bound of an increment, not other calls)
  /// or from an arrival count (Origin::Arrival, countsArrival: through
  /// arithmetic and phis), or from one at a word in ResetWords
  /// (Origin::ResetCount). Memoized; a chain deeper than MaxDepth counts as
  /// not computed from it.
  bool derived(const Value *V, Origin From, unsigned Depth = 0) {
    auto &Memo = Derived[static_cast<unsigned>(From)];
    if (auto It = Memo.find(V); It != Memo.end())
      return It->second;
    if (Depth > MaxDepth)
      return false;
    Memo[V] = false; // cycles through phis end here
    auto Through = [&](const Value *Op) {
      return derived(Op, From, Depth + 1);
    };
    bool GridSize = From == Origin::GridSize;
    bool Result = GridSize ? isGridSize(V)
                           : countsArrival(V) &&
                                 (From == Origin::Arrival ||
                                  ResetWords.contains(polledPointer(V)));
    if (Result)
      return Derived[static_cast<unsigned>(From)][V] = true;
    if (auto *RMW = dyn_cast<AtomicRMWInst>(V))
      Result = GridSize && RMW->getOperation() != AtomicRMWInst::UIncWrap &&
               RMW->getOperation() != AtomicRMWInst::UDecWrap &&
               Through(RMW->getValOperand());
    else if (auto *CAS = dyn_cast<AtomicCmpXchgInst>(V))
      Result = GridSize && Through(CAS->getNewValOperand());
    else if (isa<Instruction>(V) && !isa<LoadInst>(V) && !isa<CallBase>(V))
      Result = any_of(cast<Instruction>(V)->operands(), Through);
    // Memo may have moved as the recursion inserted into it.
    Derived[static_cast<unsigned>(From)][V] = Result;
    return Result;
  }

  bool gridSized(const Value *V) { return derived(V, Origin::GridSize); }
  bool arrivalCounted(const Value *V) { return derived(V, Origin::Arrival); }

  /// Whether some comparison (icmp) satisfies \p Test.
  template <typename Pred> bool someComparison(Pred Test) {
    return any_of(instructions(F), [&](Instruction &I) {
      auto *Cmp = dyn_cast<ICmpInst>(&I);
      return Cmp && Test(*Cmp);
    });
  }

  /// Whether a comparison takes one value counted by an arrival and one
  /// computed from the grid size: the last block's test.
  bool comparesArrivalWithGrid() {
    return someComparison([&](ICmpInst &Cmp) {
      Value *A = Cmp.getOperand(0), *B = Cmp.getOperand(1);
      return (arrivalCounted(A) && gridSized(B)) ||
             (arrivalCounted(B) && gridSized(A));
    });
  }

  /// Whether a comparison takes a count of arrivals at a word that the
  /// function sets to a number computed from the grid size (a store, an
  /// exchange or an add of it, or the wrap bound of a decrement): the last
  /// block's test of a barrier that counts down, `atomicSub(&left, 1) == 1`
  /// with `left = gridDim.x` after it, whatever the count is compared
  /// with. (An increment wraps to 0: its bound is never stored.)
  bool comparesResetCount() {
    for (Instruction &I : instructions(F))
      if (const Value *Word = setToGridSize(I))
        ResetWords.insert(Word);
    if (ResetWords.empty())
      return false;
    return someComparison([&](ICmpInst &Cmp) {
      return derived(Cmp.getOperand(0), Origin::ResetCount) ||
             derived(Cmp.getOperand(1), Origin::ResetCount);
    });
  }

  /// The word of global memory that \p I sets to a number computed from
  /// the grid size (a store; an exchange or an add of it, or the wrap bound
  /// of a decrement; as instructions or inline PTX), casts stripped;
  /// nullptr if it sets none.
  const Value *setToGridSize(const Instruction &I) {
    const Value *Pointer = nullptr, *Stored = nullptr;
    if (auto Op = asmMemoryOp(&I)) {
      if (Op->has("st") || Op->has("exch") || Op->has("add") || Op->has("dec"))
        return gridSized(Op->Operand) ? Op->Pointer : nullptr;
      return nullptr;
    }
    if (auto *Store = dyn_cast<StoreInst>(&I)) {
      Pointer = Store->getPointerOperand();
      Stored = Store->getValueOperand();
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
      switch (RMW->getOperation()) {
      case AtomicRMWInst::Xchg:
      case AtomicRMWInst::Add:
      case AtomicRMWInst::UDecWrap:
        Pointer = RMW->getPointerOperand();
        Stored = RMW->getValOperand();
        break;
      default:
        return nullptr;
      }
    }
    if (!Pointer || !inGlobalOrGenericSpace(Pointer) || !gridSized(Stored))
      return nullptr;
    return Pointer->stripPointerCasts();
  }

  /// Whether condition \p Cond of a branch leaving \p L compares a value the
  /// loop polls with a number of blocks fixed before it: its slice inside
  /// the loop reaches a polling read there, and a value from outside the
  /// loop computed from the grid size. A phi of the loop's header carries a
  /// value from the previous iteration, and what is computed from one (i +
  /// stride) is an induction variable, not a goal: the slice stops there.
  /// Where the function has a last block's test, a value from outside the
  /// loop computed from a read of a pointer the loop polls is a generation
  /// the wait waits to change. Returns the refusal's message.
  std::optional<std::string_view> waits(Value *Cond, const Loop &L) {
    bool Polls = false, Goal = false;
    SmallVector<const Value *, 2> Polled, Generations;
    SmallPtrSet<const Value *, 32> Seen;
    std::vector<const Value *> Work{Cond};
    while (!Work.empty() && !(Polls && Goal)) {
      const Value *V = Work.back();
      Work.pop_back();
      if (!Seen.insert(V).second)
        continue;
      auto *I = dyn_cast<Instruction>(V);
      if (!I || !L.contains(I)) {
        Goal |= gridSized(V);
        if (HasArrivalTest)
          pointersRead(V, Generations);
        continue;
      }
      if (pollsMemory(I)) {
        Polls = true;
        if (const Value *P = polledPointer(I))
          Polled.push_back(P);
        continue;
      }
      auto CarriedOver = [&](const Value *Op) {
        return isa<PHINode>(Op) &&
               cast<PHINode>(Op)->getParent() == L.getHeader();
      };
      if (isa<CallBase>(I) || CarriedOver(I) ||
          any_of(I->operands(), CarriedOver))
        continue;
      for (const Value *Op : I->operands())
        Work.push_back(Op);
    }
    if (Polls && Goal)
      return GridWideWaitMessage;
    for (const Value *G : Generations)
      if (is_contained(Polled, G))
        return GenerationWaitMessage;
    return std::nullopt;
  }

  /// Whether the condition of \p Br, a branch leaving \p L, compares,
  /// inside it, a value the loop polls with a constant, where an arrival
  /// (countsArrival) outside the loop that dominates it counts the block in
  /// at the pointer polled: a barrier counting down from a number the host
  /// set (`atomicSub(&left, 1); while (left != 0);`), or up to one in the
  /// source, more than one, or to one that the block's own arrival does not
  /// reach (countsDown, waitsPastOne). The slice follows operands inside
  /// the loop, not into the header's phis or calls.
  bool countsThenWaits(const BranchInst &Br, const Loop &L,
                       const DominatorTree &DT) {
    auto *Cmp = dyn_cast<ICmpInst>(Br.getCondition());
    if (Arrivals.empty() || !Cmp || !L.contains(Cmp))
      return false;
    Value *Polled = Cmp->getOperand(0);
    auto *Goal = dyn_cast<ConstantInt>(Cmp->getOperand(1));
    bool GoalFirst = false;
    if (auto *First = dyn_cast<ConstantInt>(Polled)) {
      Goal = First;
      GoalFirst = true;
      Polled = Cmp->getOperand(1);
    }
    if (!Goal)
      return false;
    SmallPtrSet<const Value *, 16> Seen;
    std::vector<const Value *> Work{Polled};
    while (!Work.empty()) {
      auto *I = dyn_cast<Instruction>(Work.back());
      Work.pop_back();
      // A phi of the header carries a value from the previous iteration.
      if (!I || !L.contains(I) || !Seen.insert(I).second ||
          (isa<PHINode>(I) && I->getParent() == L.getHeader()))
        continue;
      if (pollsMemory(I)) {
        const Value *P = polledPointer(I);
        for (const Instruction *Arrival : Arrivals)
          if (P && P == polledPointer(Arrival) && !L.contains(Arrival) &&
              DT.dominates(Arrival, L.getHeader()) &&
              (countsDown(Arrival) || Goal->getValue().ugt(1) ||
               (polledDirectly(Polled, I) && Arrival->use_empty() &&
                waitsPastOne(Br, *Cmp, *Goal, GoalFirst, L))))
            return true;
        continue;
      }
      if (!isa<CallBase>(I))
        append_range(Work, I->operands());
    }
    return false;
  }

  /// Whether \p Compared is what poll \p Poll read: the poll itself, or
  /// the value a compare-and-swap returns (`atomicCAS(&c, 0, 0)`).
  static bool polledDirectly(const Value *Compared, const Instruction *Poll) {
    if (Compared == Poll)
      return true;
    auto *Field = dyn_cast<ExtractValueInst>(Compared);
    return Field && isa<AtomicCmpXchgInst>(Poll) &&
           Field->getAggregateOperand() == Poll &&
           Field->getIndices() == ArrayRef<unsigned>{0};
  }

  /// Whether loop \p L, leaving by \p Br on \p Cmp, a comparison of the
  /// polled count with \p Goal (written first if \p GoalFirst), goes on
  /// waiting when the count is 1: a block that counted itself in at a word
  /// that was 0 waits for others (`while (count == 1)`), and so does one
  /// that counts up from a negative number the host set (`while (count !=
  /// 0)`). The goal the comparison reads as (1 in `count > 1`, clang's
  /// `icmp ugt`) is not what it waits for. Judged only where the arrival's
  /// result is unused: a block that tests its old count, as where the first
  /// to arrive initialises and the others wait for it, waits for a block
  /// that has arrived and so runs.
  static bool waitsPastOne(const BranchInst &Br, const ICmpInst &Cmp,
                           const ConstantInt &Goal, bool GoalFirst,
                           const Loop &L) {
    APInt One(Goal.getBitWidth(), 1);
    const APInt &G = Goal.getValue();
    bool Holds = GoalFirst ? ICmpInst::compare(G, One, Cmp.getPredicate())
                           : ICmpInst::compare(One, G, Cmp.getPredicate());
    return L.contains(Br.getSuccessor(Holds ? 0 : 1));
  }

  /// Whether arrival \p I takes from the count (sub, a decrement, or an add
  /// of a negative constant, as an atomicrmw or inline PTX): a count down,
  /// which a block's own arrival does not end. One that adds waits for
  /// others only where it waits for more than one: `while (count < 1)`
  /// after its own add is over at once (cuSOLVER's getf2_domino kernels).
  static bool countsDown(const Instruction *I) {
    const Value *Added = nullptr;
    if (auto Op = asmMemoryOp(I)) {
      if (Op->has("sub") || Op->has("dec"))
        return true;
      Added = Op->Operand;
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(I)) {
      if (RMW->getOperation() == AtomicRMWInst::Sub ||
          RMW->getOperation() == AtomicRMWInst::UDecWrap)
        return true;
      if (RMW->getOperation() == AtomicRMWInst::Add)
        Added = RMW->getValOperand();
    }
    auto *C = dyn_cast_or_null<ConstantInt>(Added);
    return C && C->isNegative();
  }

  /// Appends to \p Out the pointers of the global reads (loads, polls)
  /// that \p V is computed from (through arithmetic and phis, not through
  /// other atomics or calls): where a loop compares its poll with it, the
  /// value the block saw before it began to wait.
  static void pointersRead(const Value *V,
                           SmallVectorImpl<const Value *> &Out) {
    SmallPtrSet<const Value *, 16> Seen;
    std::vector<const Value *> Work{V};
    while (!Work.empty()) {
      const Value *W = Work.back();
      Work.pop_back();
      auto *I = dyn_cast<Instruction>(W);
      if (!I || !Seen.insert(I).second)
        continue;
      auto *Load = dyn_cast<LoadInst>(I);
      if ((Load && inGlobalOrGenericSpace(Load->getPointerOperand())) ||
          pollsMemory(I)) {
        if (const Value *P = polledPointer(I))
          Out.push_back(P);
      } else if (!Load && !isa<CallBase>(I) && !isa<AtomicRMWInst>(I) &&
                 !isa<AtomicCmpXchgInst>(I)) {
        append_range(Work, I->operands());
      }
    }
  }

  static constexpr unsigned MaxDepth = 512;
  Function &F;
  DenseMap<const Value *, bool> Derived[3]; ///< by Origin
  SmallPtrSet<const Value *, 4> ResetWords; ///< see comparesResetCount
  bool HasArrivalTest = false;
  /// The function's arrivals (countsArrival) whose pointer is known.
  SmallVector<const Instruction *, 4> Arrivals;
};

} // namespace

std::optional<GridWideWait> findGridWideWait(Function &F) {
  if (F.isDeclaration())
    return std::nullopt;
  return WaitFinder(F).find();
}

} // namespace baton::ir
