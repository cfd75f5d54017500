//===- GridWideWait.cpp - Grid-wide barriers written by hand --------------===//
#include "GridWideWait.h"

#include "InstructionInfo.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace baton::detail {

using namespace ptx;

namespace {

/// Whether the dot-separated qualifiers of \p Opcode include \p Q.
bool hasQualifier(std::string_view Opcode, std::string_view Q) {
  size_t At = 0;
  while ((At = Opcode.find('.', At)) != std::string_view::npos) {
    ++At;
    std::string_view Rest = Opcode.substr(At);
    if (Rest.starts_with(Q) &&
        (Rest.size() == Q.size() || Rest[Q.size()] == '.'))
      return true;
  }
  return false;
}

bool inGlobalOrGenericSpace(std::string_view Opcode) {
  for (std::string_view Space :
       {"shared", "local", "param", "const", "tex", "surf"})
    if (hasQualifier(Opcode, Space))
      return false;
  return true;
}

/// A read of global memory that another block's write can change between
/// two executions: what a wait polls.
bool readsPolledMemory(std::string_view Opcode) {
  std::string_view Base = opcodeBase(Opcode);
  if (Base == "atom")
    return inGlobalOrGenericSpace(Opcode);
  if (Base != "ld")
    return false;
  return (hasQualifier(Opcode, "volatile") || hasQualifier(Opcode, "relaxed") ||
          hasQualifier(Opcode, "acquire")) &&
         inGlobalOrGenericSpace(Opcode);
}

/// Instructions whose first argument is not a register they define.
bool definesNoRegister(std::string_view Base) {
  for (std::string_view B : {"bra", "brx", "call", "ret", "exit", "bar",
                             "barrier", "membar", "fence", "trap", "st",
                             "red", "prefetch", "prefetchu"})
    if (Base == B)
      return true;
  return false;
}

enum Taint : uint8_t { Polled = 1, GridSize = 2 };

class WaitFinder {
public:
  WaitFinder(const Module &M, const Function &F) : M(M), Body(M.body(F)) {}

  const Statement *find() {
    propagate();
    return loopBranch();
  }

private:
  /// Registers defined by instruction I (the first argument's symbols).
  std::vector<std::string_view> definitions(const Statement &S) const {
    std::vector<std::string_view> Defs;
    auto Args = M.arguments(S);
    if (Args.empty() || definesNoRegister(opcodeBase(M.text(S.Text))))
      return Defs;
    const Operand &First = Args[0];
    if (First.Kind == OperandKind::Address || First.Kind == OperandKind::Integer)
      return Defs;
    forEachSymbol(M, First, [&](const Operand &Op) {
      Defs.push_back(M.text(Op.Text));
    });
    return Defs;
  }

  /// Registers whose values instruction S computes from (not addresses).
  template <typename Fn> void forEachSource(const Statement &S, Fn &&F) const {
    auto Args = M.arguments(S);
    for (size_t I = 1; I < Args.size(); ++I)
      if (Args[I].Kind != OperandKind::Address)
        forEachSymbol(M, Args[I], [&](const Operand &Op) {
          F(M.text(Op.Text));
        });
  }

  /// What instruction S gives the registers it defines, from its own kind
  /// and its sources' taints.
  uint8_t taintOf(const Statement &S) const {
    uint8_t T = readsPolledMemory(M.text(S.Text)) ? Polled : 0;
    forEachSource(S, [&](std::string_view Name) {
      auto R = blockIndexRegister(Name);
      if (R == BlockIndexRegister::NCtaIdX || R == BlockIndexRegister::NCtaIdY ||
          R == BlockIndexRegister::NCtaIdZ)
        T |= GridSize;
      if (auto It = Taints.find(Name); It != Taints.end())
        T |= It->second;
    });
    return T;
  }

  /// Taints of every register, to a fixed point: a worklist of the
  /// instructions that read a register whose taint grew.
  void propagate() {
    std::unordered_map<std::string_view, std::vector<uint32_t>> Users;
    std::vector<uint32_t> Work;
    for (uint32_t I = 0; I < Body.size(); ++I) {
      if (Body[I].Kind != StatementKind::Instruction)
        continue;
      forEachSource(Body[I],
                    [&](std::string_view Name) { Users[Name].push_back(I); });
      Work.push_back(I);
    }
    while (!Work.empty()) {
      const Statement &S = Body[Work.back()];
      Work.pop_back();
      uint8_t T = taintOf(S);
      if (!T)
        continue;
      for (std::string_view Def : definitions(S)) {
        uint8_t &Have = Taints[Def];
        if ((Have | T) == Have)
          continue;
        Have |= T;
        if (auto It = Users.find(Def); It != Users.end())
          Work.insert(Work.end(), It->second.begin(), It->second.end());
      }
    }
  }

  bool guardIsWait(const Statement &S) const {
    if (!(S.Flags & StatementHasGuard))
      return false;
    auto It = Taints.find(M.text(M.operands(S)[0].Text));
    return It != Taints.end() && It->second == (Polled | GridSize);
  }

  /// A guarded branch that repeats a loop or leaves one, whose guard waits.
  const Statement *loopBranch() const {
    std::unordered_map<std::string_view, uint32_t> Labels;
    for (uint32_t I = 0; I < Body.size(); ++I)
      if (Body[I].Kind == StatementKind::Label)
        Labels.emplace(M.text(Body[I].Text), I);
    auto TargetOf = [&](const Statement &S) -> std::optional<uint32_t> {
      if (S.Kind != StatementKind::Instruction ||
          opcodeBase(M.text(S.Text)) != "bra")
        return std::nullopt;
      auto Args = M.arguments(S);
      if (Args.empty())
        return std::nullopt;
      auto It = Labels.find(M.text(Args[0].Text));
      if (It == Labels.end())
        return std::nullopt;
      return It->second;
    };
    for (uint32_t Back = 0; Back < Body.size(); ++Back) {
      auto Head = TargetOf(Body[Back]);
      if (!Head || *Head > Back)
        continue;
      for (uint32_t I = *Head; I <= Back; ++I) {
        auto Target = TargetOf(Body[I]);
        bool RepeatsOrLeaves =
            Target && (I == Back || *Target < *Head || *Target > Back);
        if (RepeatsOrLeaves && guardIsWait(Body[I]))
          return &Body[I];
      }
    }
    return nullptr;
  }

  const Module &M;
  std::span<const Statement> Body;
  std::unordered_map<std::string_view, uint8_t> Taints;
};

} // namespace

const Statement *findGridWideWait(const Module &M, const Function &F) {
  return WaitFinder(M, F).find();
}

} // namespace baton::detail
