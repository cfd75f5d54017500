//===- BarrierDivergence.cpp - May threads part before a CTA barrier? -----===//
#include "BarrierDivergence.h"

#include "InstructionInfo.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace baton::detail {

using namespace ptx;

namespace {

bool isRegister(std::string_view Name) {
  return !Name.empty() && Name.front() == '%';
}

/// Special registers whose value may differ between the threads of a CTA
/// (PTX ISA 9.0, chapter 10). The others (%ctaid, %nctaid, %ntid, cluster
/// ids, shared memory sizes, %nsmid) are the same in all of them.
bool isThreadVaryingSpecial(std::string_view Name) {
  std::string_view Base = Name.substr(0, Name.find('.'));
  static constexpr std::array<std::string_view, 18> Varying = {
      "%tid",           "%laneid",        "%warpid",
      "%nwarpid",       "%smid",          "%gridid",
      "%clock",         "%clock64",       "%clock_hi",
      "%globaltimer",   "%globaltimer_lo", "%globaltimer_hi",
      "%lanemask_eq",   "%lanemask_le",   "%lanemask_lt",
      "%lanemask_ge",   "%lanemask_gt",   "%current_graph_exec"};
  if (std::find(Varying.begin(), Varying.end(), Base) != Varying.end())
    return true;
  // %pm0..%pm7, %pm0_64.., %envreg0..%envreg31.
  for (std::string_view Prefix : {"%pm", "%envreg"})
    if (Base.starts_with(Prefix) && Base.size() > Prefix.size() &&
        std::isdigit(static_cast<unsigned char>(Base[Prefix.size()])))
      return true;
  return false;
}

/// Opcodes whose result is a function of their operands alone.
bool isPureOpcode(std::string_view Base) {
  static constexpr std::array<std::string_view, 46> Pure = {
      "add",  "sub",   "mul",   "mad",   "mul24", "mad24", "sad",   "div",
      "rem",  "abs",   "neg",   "min",   "max",   "popc",  "clz",   "bfind",
      "brev", "bfe",   "bfi",   "and",   "or",    "xor",   "not",   "cnot",
      "lop3", "shf",   "shl",   "shr",   "prmt",  "selp",  "slct",  "set",
      "setp", "mov",   "cvt",   "cvta",  "fma",   "rcp",   "sqrt",  "rsqrt",
      "addc", "subc",  "madc",  "bmsk",  "szext", "copysign"};
  return std::find(Pure.begin(), Pure.end(), Base) != Pure.end();
}

class Analysis {
public:
  Analysis(const Module &M, const Function &Kernel)
      : M(M), Body(M.body(Kernel)) {
    for (const Param &P : Kernel.Params)
      KernelParams.insert(M.text(P.Name));
  }

  bool mayPart() {
    if (!buildEdges())
      return true;
    markBarrierReaching();
    if (std::none_of(ReachesBarrier.begin(), ReachesBarrier.end(),
                     [](bool B) { return B; }))
      return false;
    findVaryingRegisters();
    for (size_t I = 0; I < Body.size(); ++I) {
      const Statement &S = Body[I];
      if (S.Kind != StatementKind::Instruction || !ReachesBarrier[I])
        continue;
      std::string_view Opcode = M.text(S.Text);
      std::string_view Base = opcodeBase(Opcode);
      if (Base == "brx")
        return true; // an indexed branch: its index is not followed
      bool Transfer = Base == "bra" || isExit(Opcode) ||
                      isFullCtaSync(S);
      if (Transfer && (S.Flags & StatementHasGuard) &&
          Varying.count(M.text(M.operands(S)[0].Text)))
        return true;
    }
    return false;
  }

private:
  bool isFullCtaSync(const Statement &S) const {
    auto B = classifyBarrier(M, S);
    return B && B->isFullCtaSync();
  }

  /// Successors of every statement of the body; false if a branch target
  /// is not a label of the body.
  bool buildEdges() {
    std::unordered_map<std::string_view, uint32_t> Labels;
    for (uint32_t I = 0; I < Body.size(); ++I)
      if (Body[I].Kind == StatementKind::Label &&
          !Labels.emplace(M.text(Body[I].Text), I).second)
        return false; // one name in two nested scopes: not followed
    Predecessors.assign(Body.size(), {});
    auto Edge = [&](uint32_t From, uint32_t To) {
      if (To < Body.size())
        Predecessors[To].push_back(From);
    };
    for (uint32_t I = 0; I < Body.size(); ++I) {
      const Statement &S = Body[I];
      bool Guarded = S.Flags & StatementHasGuard;
      if (S.Kind == StatementKind::Instruction) {
        std::string_view Opcode = M.text(S.Text);
        std::string_view Base = opcodeBase(Opcode);
        if (Base == "bra") {
          auto Args = M.arguments(S);
          if (Args.empty())
            return false;
          auto It = Labels.find(M.text(Args[0].Text));
          if (It == Labels.end())
            return false;
          Edge(I, It->second);
          if (Guarded)
            Edge(I, I + 1);
          continue;
        }
        if (Base == "brx")
          return false; // targets in a .branchtargets list: not followed
        if ((isExit(Opcode) || Base == "trap") && !Guarded)
          continue;
      }
      Edge(I, I + 1);
    }
    return true;
  }

  /// ReachesBarrier[I]: a full-CTA barrier can run at or after statement I.
  void markBarrierReaching() {
    ReachesBarrier.assign(Body.size(), false);
    std::vector<uint32_t> Work;
    for (uint32_t I = 0; I < Body.size(); ++I)
      if (Body[I].Kind == StatementKind::Instruction && isFullCtaSync(Body[I])) {
        ReachesBarrier[I] = true;
        Work.push_back(I);
      }
    while (!Work.empty()) {
      uint32_t I = Work.back();
      Work.pop_back();
      for (uint32_t P : Predecessors[I])
        if (!ReachesBarrier[P]) {
          ReachesBarrier[P] = true;
          Work.push_back(P);
        }
    }
  }

  bool varies(const Operand &Op) const {
    bool Any = false;
    forEachSymbol(M, Op, [&](const Operand &Sym) {
      std::string_view Name = M.text(Sym.Text);
      if (isRegister(Name) &&
          (Varying.count(Name) || isThreadVaryingSpecial(Name)))
        Any = true;
    });
    return Any;
  }

  /// A load whose value is the same in every thread given a uniform
  /// address: a kernel parameter, or the constant bank.
  bool isUniformLoad(const Statement &S) const {
    std::string_view Opcode = M.text(S.Text);
    if (opcodeBase(Opcode) != "ld")
      return false;
    if (hasModifier(Opcode, ".const"))
      return true;
    if (!hasModifier(Opcode, ".param"))
      return false;
    auto Args = M.arguments(S);
    if (Args.size() < 2)
      return false;
    // Named kernel parameters only: a call's return value is a .param too,
    // and so may be an address held in a register.
    bool AllParams = true;
    forEachSymbol(M, Args[1], [&](const Operand &Sym) {
      if (!KernelParams.count(M.text(Sym.Text)))
        AllParams = false;
    });
    return AllParams;
  }

  /// The registers S writes: those of its first argument, unless that is
  /// an address, an immediate or a label (stores, branches, barriers).
  std::vector<std::string_view> definitions(const Statement &S) const {
    std::vector<std::string_view> Defs;
    auto Args = M.arguments(S);
    if (Args.empty())
      return Defs;
    const Operand &First = Args[0];
    if (First.Kind != OperandKind::Symbol && First.Kind != OperandKind::Vector &&
        First.Kind != OperandKind::Binary)
      return Defs;
    forEachSymbol(M, First, [&](const Operand &Sym) {
      std::string_view Name = M.text(Sym.Text);
      if (isRegister(Name))
        Defs.push_back(Name);
    });
    return Defs;
  }

  void findVaryingRegisters() {
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (const Statement &S : Body) {
        if (S.Kind != StatementKind::Instruction)
          continue;
        auto Defs = definitions(S);
        if (Defs.empty() ||
            std::all_of(Defs.begin(), Defs.end(),
                        [&](std::string_view D) { return Varying.count(D); }))
          continue;
        std::string_view Base = opcodeBase(M.text(S.Text));
        bool Varies = !isPureOpcode(Base) && !isUniformLoad(S);
        auto Ops = M.operands(S);
        size_t FirstSource = (S.Flags & StatementHasGuard) ? 2 : 1;
        if (!Varies && (S.Flags & StatementHasGuard))
          Varies = Varying.count(M.text(Ops[0].Text)) > 0;
        for (size_t I = FirstSource; !Varies && I < Ops.size(); ++I)
          Varies = varies(Ops[I]);
        if (!Varies)
          continue;
        for (std::string_view D : Defs)
          Changed |= Varying.insert(D).second;
      }
    }
  }

  const Module &M;
  std::span<const Statement> Body;
  std::unordered_set<std::string_view> KernelParams;
  std::vector<std::vector<uint32_t>> Predecessors;
  std::vector<bool> ReachesBarrier;
  std::unordered_set<std::string_view> Varying;
};

} // namespace

bool threadsMayPartBeforeBarrier(const Module &M, const Function &Kernel) {
  return Analysis(M, Kernel).mayPart();
}

} // namespace baton::detail
