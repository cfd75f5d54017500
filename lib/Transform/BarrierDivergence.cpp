//===- BarrierDivergence.cpp - May threads part before a CTA barrier? -----===//
#include "BarrierDivergence.h"

#include "BodyScopes.h"
#include "InstructionInfo.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
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
  Analysis(const Module &M, const Function &Kernel, BarrierTargets Targets)
      : M(M), Body(M.body(Kernel)), Exit(static_cast<uint32_t>(Body.size())),
        Targets(Targets) {
    for (const Param &P : Kernel.Params)
      KernelParams.insert(M.text(P.Name));
  }

  std::optional<PartingPoint> mayPart() {
    if (!Scopes.build(M, Body) || !buildEdges())
      return PartingPoint{};
    markBarrierReaching();
    if (std::none_of(ReachesBarrier.begin(), ReachesBarrier.end(),
                     [](bool B) { return B; }))
      return std::nullopt;
    computePostDominators();
    if (!findVaryingRegisters())
      return PartingPoint{};
    for (uint32_t I = 0; I < Body.size(); ++I) {
      const Statement &S = Body[I];
      if (S.Kind != StatementKind::Instruction || !ReachesBarrier[I])
        continue;
      std::string_view Opcode = M.text(S.Text);
      std::string_view Base = opcodeBase(Opcode);
      if (Base == "brx")
        return PartingPoint{&S}; // an indexed branch: its index is not followed
      if (!guardVaries(I))
        continue;
      // Threads that split at a branch and meet again at its immediate
      // post-dominator, having passed no barrier and no exit on the way,
      // arrive at every later barrier alike.
      if (Base == "bra" && regionOf(I).Clean)
        continue;
      if (Base == "bra" || isExit(Opcode) || isCtaBarrier(S))
        return PartingPoint{&S};
    }
    return std::nullopt;
  }

private:
  /// A barrier every thread of the CTA must reach together: a full-CTA
  /// sync, or a reduction (whose value needs every thread's vote).
  bool isCtaBarrier(const Statement &S) const {
    auto B = classifyBarrier(M, S);
    return B && (B->isFullCtaSync() || B->Op == BarrierUse::Reduce);
  }

  /// A barrier the question is about (Targets).
  bool isTarget(const Statement &S) const {
    if (Targets == BarrierTargets::AnyCtaBarrier)
      return isCtaBarrier(S);
    auto B = classifyBarrier(M, S);
    return B && B->Op == BarrierUse::Reduce;
  }

  /// An instruction after which a thread runs nothing more of the block.
  bool endsThread(const Statement &S) const {
    std::string_view Opcode = M.text(S.Text);
    return isExit(Opcode) || opcodeBase(Opcode) == "trap";
  }

  bool guardVaries(uint32_t I) const {
    const Statement &S = Body[I];
    return (S.Flags & StatementHasGuard) &&
           Varying.count(Scopes.registerKey(M.text(M.operands(S)[0].Text), I));
  }

  /// Successors and predecessors of every statement of the body, with Exit
  /// (one past the last statement) after every exit; false if a branch
  /// target is not a label of the body.
  bool buildEdges() {
    Successors.assign(Body.size() + 1, {});
    Predecessors.assign(Body.size() + 1, {});
    auto Edge = [&](uint32_t From, uint32_t To) {
      Successors[From].push_back(To);
      Predecessors[To].push_back(From);
    };
    for (uint32_t I = 0; I < Body.size(); ++I) {
      const Statement &S = Body[I];
      bool Guarded = S.Flags & StatementHasGuard;
      if (S.Kind == StatementKind::Instruction) {
        std::string_view Base = opcodeBase(M.text(S.Text));
        if (Base == "bra") {
          auto Args = M.arguments(S);
          if (Args.empty())
            return false;
          auto Target = Scopes.label(M.text(Args[0].Text), I);
          if (!Target)
            return false;
          Edge(I, *Target);
          if (Guarded)
            Edge(I, I + 1);
          continue;
        }
        if (Base == "brx")
          return false; // targets in a .branchtargets list: not followed
        if (endsThread(S)) {
          Edge(I, Exit);
          if (Guarded)
            Edge(I, I + 1);
          continue;
        }
      }
      Edge(I, I + 1); // I + 1 == Exit after the last statement
    }
    return true;
  }

  /// ReachesBarrier[I]: a CTA barrier can run at or after statement I.
  void markBarrierReaching() {
    ReachesBarrier.assign(Body.size() + 1, false);
    std::vector<uint32_t> Work;
    for (uint32_t I = 0; I < Body.size(); ++I)
      if (isTarget(Body[I])) {
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

  /// IPdom[I]: the immediate post-dominator of statement I (Exit for the
  /// last ones), or NoNode where no path from I reaches Exit. Dominators of
  /// the reversed graph, by Cooper, Harvey and Kennedy's iteration.
  void computePostDominators() {
    const uint32_t N = Exit + 1;
    // Postorder of the reversed graph from Exit (iterative DFS).
    std::vector<uint32_t> Order, Number(N, NoNode);
    std::vector<std::pair<uint32_t, uint32_t>> Stack{{Exit, 0}};
    std::vector<bool> Seen(N, false);
    Seen[Exit] = true;
    while (!Stack.empty()) {
      auto &[Node, Next] = Stack.back();
      if (Next < Predecessors[Node].size()) {
        uint32_t P = Predecessors[Node][Next++];
        if (!Seen[P]) {
          Seen[P] = true;
          Stack.push_back({P, 0});
        }
        continue;
      }
      Number[Node] = static_cast<uint32_t>(Order.size());
      Order.push_back(Node);
      Stack.pop_back();
    }
    IPdom.assign(N, NoNode);
    IPdom[Exit] = Exit;
    auto Intersect = [&](uint32_t A, uint32_t B) {
      while (A != B) {
        while (Number[A] < Number[B])
          A = IPdom[A];
        while (Number[B] < Number[A])
          B = IPdom[B];
      }
      return A;
    };
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (auto It = Order.rbegin(); It != Order.rend(); ++It) {
        uint32_t Node = *It;
        if (Node == Exit)
          continue;
        uint32_t New = NoNode;
        for (uint32_t S : Successors[Node])
          if (IPdom[S] != NoNode)
            New = New == NoNode ? S : Intersect(S, New);
        if (New != IPdom[Node]) {
          IPdom[Node] = New;
          Changed = true;
        }
      }
    }
  }

  struct Region {
    bool Clean = false; ///< ends at a post-dominator; no barrier, no exit
    std::vector<uint32_t> Statements;
  };

  /// The statements threads may run between a branch at I and its
  /// immediate post-dominator. Not clean if it holds a barrier or an exit,
  /// or if the branch has no post-dominator but Exit.
  const Region &regionOf(uint32_t I) {
    auto [It, New] = Regions.try_emplace(I);
    Region &R = It->second;
    if (!New)
      return R;
    uint32_t Join = IPdom[I];
    R.Clean = Join != NoNode && Join != Exit;
    Visit.resize(Exit + 1, 0);
    ++Stamp;
    std::vector<uint32_t> Work(Successors[I]);
    while (!Work.empty()) {
      uint32_t Node = Work.back();
      Work.pop_back();
      if (Node == Join || Node == Exit || Visit[Node] == Stamp)
        continue;
      Visit[Node] = Stamp;
      if (++Steps > MaxSteps) {
        OverBudget = true;
        R.Clean = false;
        return R;
      }
      R.Statements.push_back(Node);
      if (isCtaBarrier(Body[Node]) || endsThread(Body[Node]))
        R.Clean = false;
      for (uint32_t S : Successors[Node])
        Work.push_back(S);
    }
    return R;
  }

  bool varies(const Operand &Op, uint32_t I) const {
    bool Any = false;
    forEachSymbol(M, Op, [&](const Operand &Sym) {
      std::string_view Name = M.text(Sym.Text);
      if (isRegister(Name) && (isThreadVaryingSpecial(Name) ||
                               Varying.count(Scopes.registerKey(Name, I))))
        Any = true;
    });
    return Any;
  }

  /// A load whose value is the same in every thread given a uniform
  /// address: a kernel parameter, or the constant bank.
  bool isUniformLoad(const Statement &S, uint32_t I) const {
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
    // Kernel parameters, by name or through a uniform register (a struct
    // of parameters read at offsets). A call's return value is a .param
    // too, but ptxas lets no register hold the address of a .param
    // declared in the body.
    bool Uniform = true;
    forEachSymbol(M, Args[1], [&](const Operand &Sym) {
      std::string_view Name = M.text(Sym.Text);
      if (KernelParams.count(Name))
        return;
      if (!isRegister(Name) || Varying.count(Scopes.registerKey(Name, I)))
        Uniform = false;
    });
    return Uniform;
  }

  /// The registers statement I writes (definedSymbols).
  std::vector<RegisterKey> definitions(uint32_t I) const {
    std::vector<RegisterKey> Defs;
    for (std::string_view Name : definedSymbols(M, Body[I]))
      if (isRegister(Name))
        Defs.push_back(Scopes.registerKey(Name, I));
    return Defs;
  }

  /// Whether statement I gives its definitions a value that may differ
  /// between the threads of a CTA.
  bool definesVarying(uint32_t I) const {
    const Statement &S = Body[I];
    auto Ops = M.operands(S);
    bool Guarded = S.Flags & StatementHasGuard;
    if (Guarded && guardVaries(I))
      return true;
    // A reduction barrier's value is the CTA's: the same in every thread.
    // Not with a thread count: each group of that many threads gets its own.
    auto Barrier = classifyBarrier(M, S);
    if (Barrier && Barrier->Op == BarrierUse::Reduce && !Barrier->HasCount)
      return false;
    if (!isPureOpcode(opcodeBase(M.text(S.Text))) && !isUniformLoad(S, I))
      return true;
    for (size_t Op = Guarded ? 2 : 1; Op < Ops.size(); ++Op)
      if (varies(Ops[Op], I))
        return true;
    return false;
  }

  /// The registers that may differ between threads of a CTA: data
  /// dependence on varying values, and sync dependence (a register written
  /// between a varying branch and its post-dominator holds, after the join,
  /// the value of whichever path a thread took). False if the analysis ran
  /// over its budget.
  bool findVaryingRegisters() {
    std::vector<bool> Expanded(Body.size(), false);
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (uint32_t I = 0; I < Body.size(); ++I) {
        auto Defs = definitions(I);
        if (Defs.empty() ||
            std::all_of(Defs.begin(), Defs.end(),
                        [&](const RegisterKey &D) { return Varying.count(D); }))
          continue;
        if (!definesVarying(I))
          continue;
        for (const RegisterKey &D : Defs)
          Changed |= Varying.insert(D).second;
      }
      for (uint32_t I = 0; I < Body.size(); ++I) {
        if (Expanded[I] || Body[I].Kind != StatementKind::Instruction ||
            opcodeBase(M.text(Body[I].Text)) != "bra" || !guardVaries(I))
          continue;
        Expanded[I] = true;
        for (uint32_t Node : regionOf(I).Statements)
          for (const RegisterKey &D : definitions(Node))
            Changed |= Varying.insert(D).second;
        if (OverBudget)
          return false;
      }
    }
    return true;
  }

  static constexpr uint32_t NoNode = ~0u;
  /// Statements visited over all regions before the analysis gives up
  /// (answers "may part"): bounds the time spent on very large kernels.
  static constexpr uint64_t MaxSteps = 20'000'000;

  const Module &M;
  std::span<const Statement> Body;
  const uint32_t Exit; ///< the node after every exit
  const BarrierTargets Targets;
  std::unordered_set<std::string_view> KernelParams;
  BodyScopes Scopes;
  std::vector<std::vector<uint32_t>> Successors, Predecessors;
  std::vector<bool> ReachesBarrier;
  std::vector<uint32_t> IPdom;
  std::unordered_map<uint32_t, Region> Regions;
  std::vector<uint32_t> Visit;
  uint32_t Stamp = 0;
  uint64_t Steps = 0;
  bool OverBudget = false;
  std::unordered_set<RegisterKey, RegisterKeyHash> Varying;
};

} // namespace

std::string describeParting(const Module &M, const PartingPoint &P) {
  if (!P.At)
    return "the kernel's control flow could not be followed";
  std::string Line = " at line " + std::to_string(M.lineOf(P.At->Text));
  std::string_view Opcode = M.text(P.At->Text);
  if (opcodeBase(Opcode) == "brx")
    return "an indexed branch" + Line + " is not followed";
  if (isExit(Opcode))
    return "threads may leave" + Line +
           " under a condition that may differ between them";
  if (opcodeBase(Opcode) != "bra")
    return "a barrier" + Line +
           " is under a condition that may differ between threads";
  return "threads may take different paths" + Line +
         " and pass a barrier or an exit before they meet again";
}

std::optional<PartingPoint>
threadsMayPartBeforeBarrier(const Module &M, const Function &Kernel,
                            BarrierTargets Targets) {
  return Analysis(M, Kernel, Targets).mayPart();
}

} // namespace baton::detail
