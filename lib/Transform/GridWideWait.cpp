//===- GridWideWait.cpp - Grid-wide barriers written by hand --------------===//
#include "GridWideWait.h"

#include "BodyScopes.h"
#include "InstructionInfo.h"
#include "baton/Transform/Refusal.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace baton::detail {

using namespace ptx;

namespace {

/// Whether the qualifiers of \p Opcode include \p Q: ".Q" followed by the
/// end, another qualifier or a "::" sub-qualifier (.shared::cta).
bool hasQualifier(std::string_view Opcode, std::string_view Q) {
  size_t At = 0;
  while ((At = Opcode.find('.', At)) != std::string_view::npos) {
    std::string_view Rest = Opcode.substr(++At);
    if (Rest.starts_with(Q) && (Rest.size() == Q.size() ||
                                Rest[Q.size()] == '.' || Rest[Q.size()] == ':'))
      return true;
  }
  return false;
}

struct IntegerType {
  std::string_view Name;
  unsigned Bits;
  bool Signed;
};

/// The integer type among \p Opcode's qualifiers (`.s32`, `.b64`, ...), if
/// it has one.
const IntegerType *integerTypeOf(std::string_view Opcode) {
  static constexpr IntegerType Types[] = {
      {"s16", 16, true},  {"u16", 16, false}, {"b16", 16, false},
      {"s32", 32, true},  {"u32", 32, false}, {"b32", 32, false},
      {"s64", 64, true},  {"u64", 64, false}, {"b64", 64, false}};
  auto Type = std::ranges::find_if(Types, [&](const IntegerType &T) {
    return hasQualifier(Opcode, T.Name);
  });
  return Type == std::end(Types) ? nullptr : Type;
}

/// \p V's low \p Bits bits, as an unsigned and as a signed number.
std::pair<uint64_t, int64_t> atWidth(uint64_t V, unsigned Bits) {
  if (Bits == 64)
    return {V, int64_t(V)};
  uint64_t U = V & ((uint64_t(1) << Bits) - 1);
  return {U, int64_t(U << (64 - Bits)) >> (64 - Bits)};
}

/// The value of integer comparison \p Opcode (`setp.CMP.TYPE`) of \p Lhs
/// with \p Rhs, taken at the type's width; nothing for a comparison of
/// floating-point values.
std::optional<bool> compareIntegers(std::string_view Opcode, uint64_t Lhs,
                                    uint64_t Rhs) {
  const IntegerType *Type = integerTypeOf(Opcode);
  if (!Type)
    return std::nullopt;
  bool Signed = Type->Signed;
  auto [UL, SL] = atWidth(Lhs, Type->Bits);
  auto [UR, SR] = atWidth(Rhs, Type->Bits);
  if (hasQualifier(Opcode, "eq"))
    return UL == UR;
  if (hasQualifier(Opcode, "ne"))
    return UL != UR;
  if (hasQualifier(Opcode, "lo") || (!Signed && hasQualifier(Opcode, "lt")))
    return UL < UR;
  if (hasQualifier(Opcode, "ls") || (!Signed && hasQualifier(Opcode, "le")))
    return UL <= UR;
  if (hasQualifier(Opcode, "hi") || (!Signed && hasQualifier(Opcode, "gt")))
    return UL > UR;
  if (hasQualifier(Opcode, "hs") || (!Signed && hasQualifier(Opcode, "ge")))
    return UL >= UR;
  if (hasQualifier(Opcode, "lt"))
    return SL < SR;
  if (hasQualifier(Opcode, "le"))
    return SL <= SR;
  if (hasQualifier(Opcode, "gt"))
    return SL > SR;
  if (hasQualifier(Opcode, "ge"))
    return SL >= SR;
  return std::nullopt;
}

bool inGlobalOrGenericSpace(std::string_view Opcode) {
  for (std::string_view Space :
       {"shared", "local", "param", "const", "tex", "surf"})
    if (hasQualifier(Opcode, Space))
      return false;
  return true;
}

/// 0 however it is written: 0, 0x0, (0), (.u64)0, 1 ? 0 : 1.
bool isZero(const Module &M, const Operand &Op) {
  auto V = evaluateConstant(M, Op);
  return V && *V == 0;
}

/// All ones in 32 or 64 bits, however written: -1, 0xffffffff, ~0.
bool isAllOnes(const Module &M, const Operand &Op) {
  auto V = evaluateConstant(M, Op);
  return V && (*V == ~uint64_t(0) || *V == 0xffffffffu);
}

/// Two operands that read alike, children included.
bool sameOperand(const Module &M, const Operand &A, const Operand &B) {
  if (A.Kind != B.Kind || M.text(A.Text) != M.text(B.Text))
    return false;
  auto ChildrenA = M.children(A), ChildrenB = M.children(B);
  return std::equal(ChildrenA.begin(), ChildrenA.end(), ChildrenB.begin(),
                    ChildrenB.end(), [&](const Operand &X, const Operand &Y) {
                      return sameOperand(M, X, Y);
                    });
}

/// A read of global memory that another block's write can change between
/// two executions, and that changes nothing itself: what a wait polls. A
/// strong load, a load that bypasses the L1 (ld.cg, ld.cv: __ldcg,
/// __ldcv), or an atomic that leaves the word as it was (add 0, or 0, and
/// -1, a compare-and-swap that writes what it compares with). Other
/// atomics claim or arrive; they do not wait.
bool pollsMemory(const Module &M, const Statement &S) {
  std::string_view Opcode = M.text(S.Text);
  if (!inGlobalOrGenericSpace(Opcode))
    return false;
  std::string_view Base = opcodeBase(Opcode);
  auto Args = M.arguments(S); // destination, address, values
  if (Base == "ld")
    return Args.size() >= 2 &&
           (hasQualifier(Opcode, "volatile") ||
            hasQualifier(Opcode, "relaxed") ||
            hasQualifier(Opcode, "acquire") || hasQualifier(Opcode, "cg") ||
            hasQualifier(Opcode, "cv"));
  if (Base != "atom")
    return false;
  if (Args.size() == 3 && (hasQualifier(Opcode, "add") ||
                           hasQualifier(Opcode, "or") ||
                           hasQualifier(Opcode, "xor")))
    return isZero(M, Args[2]);
  if (Args.size() == 3 && hasQualifier(Opcode, "and"))
    return isAllOnes(M, Args[2]);
  if (Args.size() == 4 && hasQualifier(Opcode, "cas"))
    return sameOperand(M, Args[2], Args[3]);
  return false;
}

/// The address operand of a read of memory (ld) or of a polling atomic.
const Operand &polledAddress(const Module &M, const Statement &S) {
  return M.arguments(S)[1];
}

/// The address at which \p S counts a block's arrival, if it does: an
/// atom or red that adds to, subtracts from, increments or decrements a
/// word of global memory and changes it (not a poll; red.add of 0 neither).
const Operand *arrivalAddress(const Module &M, const Statement &S) {
  std::string_view Opcode = M.text(S.Text);
  std::string_view Base = opcodeBase(Opcode);
  if ((Base != "atom" && Base != "red") || !inGlobalOrGenericSpace(Opcode))
    return nullptr;
  auto Args = M.arguments(S); // atom: destination, address, values; red:
                              // address, value
  size_t Address = Base == "atom" ? 1 : 0;
  if (Args.size() < Address + 2 || (Base == "atom" && pollsMemory(M, S)) ||
      (Base == "red" && isZero(M, Args[Address + 1])))
    return nullptr;
  for (std::string_view Op : {"add", "sub", "inc", "dec"})
    if (hasQualifier(Opcode, Op))
      return &Args[Address];
  return nullptr;
}

/// An atomic that counts a block's arrival and returns the count: an atom
/// that arrivalAddress finds.
bool countsArrival(const Module &M, const Statement &S) {
  return opcodeBase(M.text(S.Text)) == "atom" && arrivalAddress(M, S);
}

class WaitFinder {
public:
  WaitFinder(const Module &M, const Function &F) : M(M), Body(M.body(F)) {}

  std::optional<GridWideWait> find() {
    for (uint32_t I = 0; I < Body.size(); ++I)
      if (Body[I].Kind == StatementKind::Instruction)
        if (const Operand *Address = arrivalAddress(M, Body[I]))
          ArrivalsAt.push_back({I, Address});
    if (ArrivalsAt.empty() && !readsGridSize())
      return std::nullopt;
    indexDefinitions();
    findUsers();
    GridSized = derivedFrom([&](const Statement &S) {
      bool Found = false;
      forEachSource(S,
                    [&](std::string_view Name) { Found |= isGridSize(Name); });
      return Found;
    });
    std::unordered_set<std::string_view> Arrivals = derivedFrom(
        [&](const Statement &S) { return countsArrival(M, S); });
    HasArrivalTest = comparesBoth(Arrivals) || comparesResetCount();
    return waitingBranch();
  }

private:
  /// Registers whose values instruction S computes from: not addresses,
  /// and not the wrap bound of atom.inc/dec (a ticket taken modulo the grid
  /// size is not a number of blocks to wait for).
  template <typename Fn> void forEachSource(const Statement &S, Fn &&F) const {
    std::string_view Opcode = M.text(S.Text);
    if (opcodeBase(Opcode) == "atom" &&
        (hasQualifier(Opcode, "inc") || hasQualifier(Opcode, "dec")))
      return;
    auto Args = M.arguments(S);
    for (size_t I = 1; I < Args.size(); ++I)
      if (Args[I].Kind != OperandKind::Address)
        forEachSymbol(M, Args[I], [&](const Operand &Op) {
          F(M.text(Op.Text));
        });
  }

  static bool isGridSize(std::string_view Name) {
    auto R = blockIndexRegister(Name);
    return R == BlockIndexRegister::NCtaIdX ||
           R == BlockIndexRegister::NCtaIdY || R == BlockIndexRegister::NCtaIdZ;
  }

  bool readsGridSize() const {
    for (const Statement &S : Body)
      if (S.Kind == StatementKind::Instruction)
        for (const Operand &Op : M.arguments(S)) {
          bool Found = false;
          forEachSymbol(M, Op, [&](const Operand &Sym) {
            Found |= isGridSize(M.text(Sym.Text));
          });
          if (Found)
            return true;
        }
    return false;
  }

  void indexDefinitions() {
    for (uint32_t I = 0; I < Body.size(); ++I)
      if (Body[I].Kind == StatementKind::Instruction)
        for (std::string_view Def : definedSymbols(M, Body[I]))
          DefinedAt[Def].push_back(I);
  }

  void findUsers() {
    for (uint32_t I = 0; I < Body.size(); ++I)
      if (Body[I].Kind == StatementKind::Instruction)
        forEachSource(Body[I],
                      [&](std::string_view Name) { Users[Name].push_back(I); });
  }

  /// Registers the instructions \p Seed picks define, and those computed
  /// from them anywhere in the function (any of their definitions), to a
  /// fixed point: for %nctaid, the registers computed from the grid size.
  template <typename Pred>
  std::unordered_set<std::string_view> derivedFrom(Pred Seed) const {
    std::unordered_set<std::string_view> Derived;
    std::vector<uint32_t> Work;
    for (uint32_t I = 0; I < Body.size(); ++I)
      if (Body[I].Kind == StatementKind::Instruction && Seed(Body[I]))
        Work.push_back(I);
    while (!Work.empty()) {
      const Statement &S = Body[Work.back()];
      Work.pop_back();
      for (std::string_view Def : definedSymbols(M, S))
        if (Derived.insert(Def).second)
          if (auto It = Users.find(Def); It != Users.end())
            Work.insert(Work.end(), It->second.begin(), It->second.end());
    }
    return Derived;
  }

  /// Whether register \p Name is %nctaid or computed from it.
  bool gridSized(std::string_view Name) const {
    return isGridSize(Name) || GridSized.count(Name) > 0;
  }

  /// Whether some comparison (setp) satisfies \p Test.
  template <typename Pred> bool someComparison(Pred Test) const {
    return std::any_of(Body.begin(), Body.end(), [&](const Statement &S) {
      return S.Kind == StatementKind::Instruction &&
             opcodeBase(M.text(S.Text)) == "setp" && Test(S);
    });
  }

  /// Whether a comparison takes one value from \p Arrivals and one
  /// computed from the grid size: the last block's test.
  bool comparesBoth(const std::unordered_set<std::string_view> &Arrivals) {
    return someComparison([&](const Statement &S) {
      bool Arrival = false, Grid = false;
      forEachSource(S, [&](std::string_view Name) {
        Arrival |= Arrivals.count(Name) > 0;
        Grid |= gridSized(Name);
      });
      return Arrival && Grid;
    });
  }

  /// Whether a comparison takes a count of arrivals at a word that the
  /// kernel sets to a number computed from the grid size (a store, an
  /// exchange or an add of it, or the wrap bound of atom.dec): the last
  /// block's test of a barrier that counts down, `atomicSub(&left, 1) == 1`
  /// with `left = gridDim.x` after it, whatever the count is compared with.
  /// (atom.inc wraps to 0: its bound is never stored.)
  bool comparesResetCount() const {
    std::vector<const Operand *> Resets;
    for (const Statement &S : Body)
      if (S.Kind == StatementKind::Instruction)
        if (const Operand *Word = setToGridSize(S))
          Resets.push_back(Word);
    if (Resets.empty())
      return false;
    std::unordered_set<std::string_view> Counts =
        derivedFrom([&](const Statement &S) {
          return countsArrival(M, S) &&
                 std::any_of(Resets.begin(), Resets.end(),
                             [&](const Operand *Word) {
                               return sameLocation(M.arguments(S)[1], *Word);
                             });
        });
    return someComparison([&](const Statement &S) {
      bool Count = false;
      forEachSource(
          S, [&](std::string_view Name) { Count |= Counts.count(Name) > 0; });
      return Count;
    });
  }

  /// The address of global memory that \p S sets to a number computed from
  /// the grid size (st; atom.exch, atom.add or red.add of it, or the wrap
  /// bound of atom.dec or red.dec), if it does.
  const Operand *setToGridSize(const Statement &S) const {
    std::string_view Opcode = M.text(S.Text);
    std::string_view Base = opcodeBase(Opcode);
    if ((Base != "st" && Base != "atom" && Base != "red") ||
        !inGlobalOrGenericSpace(Opcode))
      return nullptr;
    auto Args = M.arguments(S);
    size_t Address = Base == "atom" ? 1 : 0;
    if (Args.size() != Address + 2)
      return nullptr;
    if (Base != "st" && !hasQualifier(Opcode, "exch") &&
        !hasQualifier(Opcode, "add") && !hasQualifier(Opcode, "dec"))
      return nullptr;
    bool Grid = false;
    forEachSymbol(M, Args[Address + 1], [&](const Operand &Sym) {
      Grid |= gridSized(M.text(Sym.Text));
    });
    return Grid ? &Args[Address] : nullptr;
  }

  /// Whether addresses \p A and \p B read alike or point at the same place
  /// (locationOf).
  bool sameLocation(const Operand &A, const Operand &B) const {
    if (sameOperand(M, A, B))
      return true;
    auto LocationA = locationOf(A), LocationB = locationOf(B);
    return LocationA && LocationA == LocationB;
  }

  /// Where address \p Addr points, as far as moves tell: the symbol it is
  /// based on, followed back through registers defined once, by a mov or
  /// cvta of another symbol (nvcc's `mov.u64 %rd6, left;` before
  /// `atom [%rd6]`) or an add of a constant to one (`add.s64 %rd2, %rd1,
  /// 4;` before `[%rd2]`, where `[%rd1+4]` reads the same word), and its
  /// constant offset. nullopt for other forms.
  std::optional<std::pair<std::string_view, uint64_t>>
  locationOf(const Operand &Addr) const {
    auto Children = M.children(Addr);
    if (Addr.Kind != OperandKind::Address || Children.size() != 1)
      return std::nullopt;
    const Operand *Base = &Children[0];
    uint64_t Offset = 0;
    if (Base->Kind == OperandKind::Binary && M.text(Base->Text) == "+") {
      auto Parts = M.children(*Base);
      std::optional<uint64_t> Constant;
      if (Parts.size() == 2)
        Constant = evaluateConstant(M, Parts[1]);
      if (!Constant)
        return std::nullopt;
      Offset = *Constant;
      Base = &Parts[0];
    }
    if (Base->Kind != OperandKind::Symbol)
      return std::nullopt;
    std::string_view Name = M.text(Base->Text);
    for (int Hops = 0; Hops < MaxMoves; ++Hops) {
      auto It = DefinedAt.find(Name);
      if (It == DefinedAt.end() || It->second.size() != 1)
        break;
      const Statement &S = Body[It->second.front()];
      std::string_view Opcode = opcodeBase(M.text(S.Text));
      auto Args = M.arguments(S);
      if (Opcode == "add" && Args.size() == 3 &&
          Args[1].Kind == OperandKind::Symbol) {
        std::optional<uint64_t> Constant = evaluateConstant(M, Args[2]);
        if (!Constant)
          break;
        Offset += *Constant; // wraps as the address does
      } else if ((Opcode != "mov" && Opcode != "cvta") || Args.size() != 2 ||
                 Args[1].Kind != OperandKind::Symbol) {
        break;
      }
      Name = M.text(Args[1].Text);
    }
    return std::pair{Name, Offset};
  }

  /// The definitions of register \p Reg inside the loop [Head, Back].
  std::vector<uint32_t> definitionsInside(std::string_view Reg, uint32_t Head,
                                          uint32_t Back) const {
    std::vector<uint32_t> Inside;
    if (auto It = DefinedAt.find(Reg); It != DefinedAt.end())
      for (uint32_t D : It->second)
        if (D >= Head && D <= Back)
          Inside.push_back(D);
    return Inside;
  }

  /// Whether predicate \p Guard, within the loop [Head, Back], compares a
  /// value the loop polls with a number of blocks fixed before it: the
  /// slice of its definitions inside the loop reaches a polling read there,
  /// and a register the loop does not define that holds a grid size. A
  /// register the loop defines from itself (i += stride) is an induction
  /// variable, not a goal: the slice stops there. Where the kernel has a
  /// last block's test, a register defined outside the loop only by polls
  /// of an address the loop polls is a generation the wait waits to change.
  std::optional<std::string_view> waits(std::string_view Guard, uint32_t Head,
                                        uint32_t Back) const {
    bool Polls = false, Goal = false;
    std::vector<const Operand *> Polled, Generations;
    std::unordered_set<std::string_view> Seen;
    std::vector<std::string_view> Work{Guard};
    while (!Work.empty() && !(Polls && Goal)) {
      std::string_view Reg = Work.back();
      Work.pop_back();
      if (!Seen.insert(Reg).second)
        continue;
      std::vector<uint32_t> Inside = definitionsInside(Reg, Head, Back);
      if (Inside.empty()) {
        Goal |= gridSized(Reg);
        if (HasArrivalTest)
          addressesRead(Reg, Generations);
        continue;
      }
      for (uint32_t D : Inside) {
        if (pollsMemory(M, Body[D])) {
          Polls = true;
          Polled.push_back(&polledAddress(M, Body[D]));
          continue;
        }
        bool Induction = false;
        forEachSource(Body[D],
                      [&](std::string_view Src) { Induction |= Src == Reg; });
        if (!Induction)
          forEachSource(Body[D],
                        [&](std::string_view Src) { Work.push_back(Src); });
      }
    }
    if (Polls && Goal)
      return GridWideWaitMessage;
    for (const Operand *G : Generations)
      for (const Operand *P : Polled)
        if (sameLocation(*G, *P))
          return GenerationWaitMessage;
    return std::nullopt;
  }

  /// Whether the guard of branch \p Branch, within the loop [Head, Back],
  /// is a comparison there of a value the loop polls with a constant, where
  /// an arrival before the loop counts the block in at the address polled:
  /// a barrier counting down from a number the host set (`atomicSub(&left,
  /// 1); while (left != 0);`), or up to one in the source, more than one,
  /// or to one that the block's own arrival does not reach (countsDown,
  /// waitsPastOne).
  bool countsThenWaits(uint32_t Branch, uint32_t Head, uint32_t Back) const {
    if (ArrivalsAt.empty())
      return false;
    const Operand &Guard = M.operands(Body[Branch])[0];
    std::vector<uint32_t> Inside =
        definitionsInside(M.text(Guard.Text), Head, Back);
    if (Inside.size() != 1 ||
        opcodeBase(M.text(Body[Inside[0]].Text)) != "setp")
      return false;
    const Statement &Setp = Body[Inside[0]];
    auto Args = M.arguments(Setp); // predicate, a, b
    if (Args.size() != 3)
      return false;
    const Operand *Value = &Args[1];
    std::optional<uint64_t> Goal = evaluateConstant(M, Args[2]);
    bool GoalFirst = !Goal;
    if (GoalFirst) {
      Value = &Args[2];
      Goal = evaluateConstant(M, Args[1]);
    }
    if (!Goal || Value->Kind != OperandKind::Symbol)
      return false;
    std::vector<uint32_t> ValueInside =
        definitionsInside(M.text(Value->Text), Head, Back);
    // waitsPastOne reads the comparison as the count's; so it must be.
    bool PolledDirectly =
        ValueInside.size() == 1 && pollsMemory(M, Body[ValueInside[0]]);
    for (const Operand *Polled : polledBy(M.text(Value->Text), Head, Back))
      for (const auto &[At, Address] : ArrivalsAt)
        if (sameLocation(*Address, *Polled) &&
            (countsDown(Body[At]) || *Goal > 1 ||
             (PolledDirectly && resultUnused(Body[At]) &&
              waitsPastOne(Branch, Back, Setp, *Goal, GoalFirst))) &&
            passedOnTheWay(At, Head, Back))
          return true;
    return false;
  }

  /// Whether the loop [Head, Back], repeated or left by branch \p Branch on
  /// comparison \p Setp of the polled count with \p Goal (written first if
  /// \p GoalFirst), goes on waiting when the count is 1: a block that
  /// counted itself in at a word that was 0 waits for others (`while (count
  /// == 1)`), and so does one that counts up from a negative number the host
  /// set (`while (count != 0)`). The goal the comparison reads as (1 in
  /// `count > 1`) is not what it waits for.
  bool waitsPastOne(uint32_t Branch, uint32_t Back, const Statement &Setp,
                    uint64_t Goal, bool GoalFirst) const {
    std::string_view Opcode = M.text(Setp.Text);
    std::optional<bool> Holds = GoalFirst ? compareIntegers(Opcode, Goal, 1)
                                          : compareIntegers(Opcode, 1, Goal);
    const Operand &Guard = M.operands(Body[Branch])[0];
    std::string_view Name = M.text(Guard.Text);
    const Operand &Dest = M.arguments(Setp)[0];
    if (Dest.Kind == OperandKind::Binary) { // setp p|q: q is the negation
      auto Pair = M.children(Dest);
      if (Pair.size() != 2)
        return false;
      if (M.text(Pair[1].Text) == Name)
        Holds = Holds ? std::optional(!*Holds) : std::nullopt;
      else if (M.text(Pair[0].Text) != Name)
        return false;
    } else if (M.text(Dest.Text) != Name) {
      return false;
    }
    if (!Holds)
      return false;
    bool Taken = *Holds != bool(Guard.Flags & OperandNegated);
    return Branch == Back ? Taken : !Taken;
  }

  /// Whether nothing reads what arrival \p S returns (a `red`, or an `atom`
  /// whose result is dead). A block that tests its old count, as where the
  /// first to arrive initialises and the others wait for it, waits for a
  /// block that has arrived and so runs: waitsPastOne does not judge it.
  bool resultUnused(const Statement &S) const {
    if (opcodeBase(M.text(S.Text)) != "atom")
      return true;
    const Operand &Result = M.arguments(S)[0];
    return Result.Kind == OperandKind::Sink ||
           !Users.contains(M.text(Result.Text));
  }

  /// Whether every way into the loop [Head, Back] passes statement \p At
  /// before it, as far as the body's order tells (it has no control-flow
  /// graph): \p At comes first, and no branch from before it or from past
  /// the loop lands between it and the loop's head. An arrival on another
  /// branch (`if (blockIdx.x < 4) arrive; else wait;`) does not count.
  bool passedOnTheWay(uint32_t At, uint32_t Head, uint32_t Back) const {
    if (At >= Head)
      return false;
    for (uint32_t I = 0; I < Body.size(); ++I)
      if ((I < At || I > Back) && Target[I] && *Target[I] > At &&
          *Target[I] <= Head)
        return false;
    return true;
  }

  /// Whether arrival \p S takes from the count (sub, dec, or add of a
  /// negative constant, written or moved into a register): a count down,
  /// which a block's own arrival does not end. One that adds waits for
  /// others only where it waits for more than one: `while (count < 1)`
  /// after its own add is over at once (cuSOLVER's getf2_domino kernels).
  bool countsDown(const Statement &S) const {
    std::string_view Opcode = M.text(S.Text);
    if (hasQualifier(Opcode, "sub") || hasQualifier(Opcode, "dec"))
      return true;
    if (!hasQualifier(Opcode, "add"))
      return false;
    const Operand &Value = M.arguments(S).back();
    std::optional<uint64_t> Added = evaluateConstant(M, Value);
    if (!Added && Value.Kind == OperandKind::Symbol)
      if (auto It = DefinedAt.find(M.text(Value.Text));
          It != DefinedAt.end() && It->second.size() == 1) {
        const Statement &Def = Body[It->second.front()];
        auto DefArgs = M.arguments(Def);
        if (opcodeBase(M.text(Def.Text)) == "mov" && DefArgs.size() == 2)
          Added = evaluateConstant(M, DefArgs[1]);
      }
    // Atomics are 32 or 64 bits wide.
    const IntegerType *Type = integerTypeOf(Opcode);
    unsigned Bits = Type && Type->Bits == 64 ? 64 : 32;
    return Added && atWidth(*Added, Bits).second < 0;
  }

  /// The addresses of the polling reads inside the loop [Head, Back] that
  /// register \p Reg is computed from there (through registers; a register
  /// the loop defines from itself ends the search).
  std::vector<const Operand *> polledBy(std::string_view Reg, uint32_t Head,
                                        uint32_t Back) const {
    std::vector<const Operand *> Polled;
    walkDefinitions(Reg, [&](std::string_view R, uint32_t D, auto &Work) {
      if (D < Head || D > Back)
        return;
      if (pollsMemory(M, Body[D])) {
        Polled.push_back(&polledAddress(M, Body[D]));
        return;
      }
      bool Induction = false;
      forEachSource(Body[D],
                    [&](std::string_view Src) { Induction |= Src == R; });
      if (!Induction)
        forEachSource(Body[D],
                      [&](std::string_view Src) { Work.push_back(Src); });
    });
    return Polled;
  }

  /// Calls \p Visit(R, D, Work) for each definition D of register \p Reg,
  /// and of each register Visit pushes onto Work, every register once.
  template <typename Fn>
  void walkDefinitions(std::string_view Reg, Fn Visit) const {
    std::unordered_set<std::string_view> Seen;
    std::vector<std::string_view> Work{Reg};
    while (!Work.empty()) {
      std::string_view R = Work.back();
      Work.pop_back();
      auto It = DefinedAt.find(R);
      if (!Seen.insert(R).second || It == DefinedAt.end())
        continue;
      for (uint32_t D : It->second)
        Visit(R, D, Work);
    }
  }

  /// Appends to \p Out the addresses of the global reads that \p Reg is
  /// computed from (through registers, not through memory, atomics or
  /// calls): where a loop compares its poll with it, the value the block
  /// saw before it began to wait.
  void addressesRead(std::string_view Reg,
                     std::vector<const Operand *> &Out) const {
    walkDefinitions(Reg, [&](std::string_view, uint32_t D, auto &Work) {
      const Statement &S = Body[D];
      std::string_view Opcode = M.text(S.Text);
      std::string_view Base = opcodeBase(Opcode);
      if ((Base == "ld" && inGlobalOrGenericSpace(Opcode) &&
           M.arguments(S).size() >= 2) ||
          pollsMemory(M, S))
        Out.push_back(&polledAddress(M, S));
      else if (Base != "ld" && Base != "atom" && !isCall(Opcode))
        forEachSource(S, [&](std::string_view Src) { Work.push_back(Src); });
    });
  }

  /// A guarded branch that repeats a loop (to a label at or before it) or
  /// leaves one (from between that label and the repeating branch to
  /// outside them), whose guard waits.
  std::optional<GridWideWait> waitingBranch() {
    // Inline assembly repeats label names in nested scopes; ptxas rejects a
    // body whose braces do not balance or whose scope repeats a label.
    BodyScopes Scopes;
    if (!Scopes.build(M, Body))
      return std::nullopt;
    Target.assign(Body.size(), std::nullopt);
    std::vector<uint32_t> Guarded;
    for (uint32_t I = 0; I < Body.size(); ++I) {
      const Statement &S = Body[I];
      if (S.Kind != StatementKind::Instruction ||
          opcodeBase(M.text(S.Text)) != "bra" || M.arguments(S).empty())
        continue;
      Target[I] = Scopes.label(M.text(M.arguments(S)[0].Text), I);
      // A guard computed from no grid size at all cannot wait for one; a
      // wait for a generation to change needs a last block's test; a wait
      // for a count to reach a constant, an arrival.
      if (Target[I] && (S.Flags & StatementHasGuard) &&
          (HasArrivalTest || !ArrivalsAt.empty() ||
           gridSized(M.text(M.operands(S)[0].Text))))
        Guarded.push_back(I);
    }
    for (uint32_t Back = 0; Back < Body.size(); ++Back) {
      if (!Target[Back] || *Target[Back] > Back)
        continue;
      uint32_t Head = *Target[Back];
      for (uint32_t I : Guarded) {
        if (I < Head || I > Back)
          continue;
        if (I != Back && *Target[I] >= Head && *Target[I] <= Back)
          continue; // neither repeats nor leaves the loop
        std::string_view Guard = M.text(M.operands(Body[I])[0].Text);
        if (auto Message = waits(Guard, Head, Back))
          return GridWideWait{&Body[I], *Message};
        if (countsThenWaits(I, Head, Back))
          return GridWideWait{&Body[I], CountWaitMessage};
      }
    }
    return std::nullopt;
  }

  static constexpr int MaxMoves = 8;
  const Module &M;
  std::span<const Statement> Body;
  std::unordered_map<std::string_view, std::vector<uint32_t>> DefinedAt;
  std::unordered_map<std::string_view, std::vector<uint32_t>> Users;
  std::unordered_set<std::string_view> GridSized;
  bool HasArrivalTest = false;
  /// Where the kernel counts blocks in (arrivalAddress): the statement's
  /// index and the address.
  std::vector<std::pair<uint32_t, const Operand *>> ArrivalsAt;
  /// By statement: where the branch there lands (waitingBranch).
  std::vector<std::optional<uint32_t>> Target;
};

} // namespace

std::optional<GridWideWait> findGridWideWait(const Module &M,
                                             const Function &F) {
  return WaitFinder(M, F).find();
}

} // namespace baton::detail
