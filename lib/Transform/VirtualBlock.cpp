//===- VirtualBlock.cpp - Virtualise the block index of a function body ---===//
#include "VirtualBlock.h"

#include "InstructionInfo.h"
#include "baton/Transform/Names.h"
#include "baton/Transform/SpillingPragma.h"

namespace baton::detail {

using namespace ptx;

static constexpr std::array<std::string_view, 3> Axes = {"x", "y", "z"};

GeneratedNames::GeneratedNames(std::string P) : Prefix(std::move(P)) {
  for (size_t I = 0; I < 3; ++I) {
    CtaId[I] = reg(std::string("ctaid_") + std::string(Axes[I]));
    NCtaId[I] = reg(std::string("nctaid_") + std::string(Axes[I]));
  }
}

BlockIndexUse blockIndexUse(const Module &M, const CallGraph &CG,
                            uint32_t Kernel,
                            std::span<const uint32_t> Reachable) {
  BlockIndexUse Use;
  for (uint32_t F : Reachable)
    if (CG.readsBlockIndex(F)) {
      // Clones take all six values, so the caller must have them all.
      Use.CtaId.fill(true);
      Use.NCtaId.fill(true);
      return Use;
    }
  for (const Statement &S : M.body(M.Functions[Kernel])) {
    if (S.Kind != StatementKind::Instruction)
      continue;
    for (const Operand &Op : M.arguments(S))
      forEachSymbol(M, Op, [&](const Operand &Sym) {
        auto R = blockIndexRegister(M.text(Sym.Text));
        if (!R)
          return;
        size_t I = static_cast<size_t>(*R);
        (I < 3 ? Use.CtaId[I] : Use.NCtaId[I - 3]) = true;
      });
  }
  return Use;
}

/// Op with every block-index register (and every register Exits renames)
/// replaced by its virtual register, or nullopt if Op reads none.
static std::optional<Operand>
replaceBlockIndex(StatementBuilder &B, const Operand &Op,
                  const GeneratedNames &Names,
                  const ExitAndBarrierRewrite *Exits) {
  Module &M = B.module();
  if (Op.Kind == OperandKind::Symbol) {
    std::string_view Name = M.text(Op.Text);
    if (Exits)
      for (const auto &[From, To] : Exits->RenamedRegisters)
        if (Name == From)
          return B.sym(To);
    auto R = blockIndexRegister(Name);
    if (!R)
      return std::nullopt;
    size_t I = static_cast<size_t>(*R);
    return B.sym(I < 3 ? Names.CtaId[I] : Names.NCtaId[I - 3]);
  }
  if (Op.NumChildren == 0)
    return std::nullopt;
  std::vector<Operand> Children(M.children(Op).begin(), M.children(Op).end());
  bool Changed = false;
  for (Operand &Child : Children)
    if (auto New = replaceBlockIndex(B, Child, Names, Exits)) {
      Child = *New;
      Changed = true;
    }
  if (!Changed)
    return std::nullopt;
  Operand Copy = Op;
  Operand Holder = B.vector(Children); // stores the children contiguously
  Copy.FirstChild = Holder.FirstChild;
  return Copy;
}

std::string virtualCalleeName(const Module &M, const CallGraph &CG,
                              const Function &F) {
  // f__baton_vb, or f__baton_vb0, ... if the input already defines that
  // (for instance when it is itself baton-ptx output).
  std::string Base = std::string(M.text(F.Name)) + std::string(VirtualCalleeSuffix);
  std::string Name = Base;
  for (unsigned N = 0; CG.lookup(Name) >= 0; ++N)
    Name = Base + std::to_string(N);
  return Name;
}

static bool usesRegisterParams(const Module &M, const Function &F) {
  return !F.Params.empty() && !F.Params[0].Qualifiers.empty() &&
         M.text(F.Params[0].Qualifiers[0]) == ".reg";
}


static std::array<std::string, 6> cloneParamNames(const GeneratedNames &N,
                                                  bool RegisterParams) {
  std::array<std::string, 6> Out;
  for (size_t I = 0; I < 3; ++I) {
    Out[I] = RegisterParams ? N.CtaId[I]
                            : N.symbol("vb_ctaid_" + std::string(Axes[I]));
    Out[I + 3] = RegisterParams
                     ? N.NCtaId[I]
                     : N.symbol("vb_nctaid_" + std::string(Axes[I]));
  }
  return Out;
}

/// call f, (args) -> { .param ...; st.param ...; call f__baton_vb, (args, ...) }
static void emitRedirectedCall(StatementBuilder &B, const Statement &S,
                               std::vector<Operand> Ops, uint32_t CalleeIndex,
                               const Function &Callee,
                               const std::string &CloneName,
                               const GeneratedNames &Names) {
  Module &M = B.module();
  bool RegisterParams = usesRegisterParams(M, Callee);
  std::array<std::string, 6> Values;
  for (size_t I = 0; I < 3; ++I) {
    Values[I] = Names.CtaId[I];
    Values[I + 3] = Names.NCtaId[I];
  }
  std::vector<Operand> Extra;
  B.blockBegin();
  if (RegisterParams) {
    for (const std::string &V : Values)
      Extra.push_back(B.sym(V));
  } else {
    std::array<std::string, 6> Args;
    for (size_t I = 0; I < 6; ++I)
      Args[I] = Names.symbol("arg" + std::to_string(I));
    B.decl(".param", {".b32"}, Args);
    for (size_t I = 0; I < 6; ++I) {
      B.inst("st.param.b32", {B.address(B.sym(Args[I])), B.sym(Values[I])});
      Extra.push_back(B.sym(Args[I]));
    }
  }
  Ops[CalleeIndex] = B.sym(CloneName);
  auto ArgList = callArgumentList(M, S);
  if (ArgList) {
    std::vector<Operand> Args(M.children(Ops[*ArgList]).begin(),
                              M.children(Ops[*ArgList]).end());
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    Ops[*ArgList] = B.paren(Args);
  } else {
    Ops.insert(Ops.begin() + CalleeIndex + 1, B.paren(Extra));
  }
  B.instWithOperands(S.Text, Ops, S.Flags);
  B.blockEnd();
}

void rewriteBody(StatementBuilder &B, const Function &F, const CallGraph &CG,
                 const GeneratedNames &Names,
                 const ExitAndBarrierRewrite *Exits) {
  Module &M = B.module();
  for (const Statement &S : M.body(F)) {
    // The PTB variant uses dynamic shared memory, beside which ptxas
    // rejects this pragma (SpillingPragma.h); other pragmas stay.
    if (Exits && S.Kind == StatementKind::Directive)
      if (std::optional<std::string> Kept =
              withoutSpillingPragma(M.text(S.Text))) {
        if (!Kept->empty())
          B.directive(*Kept);
        continue;
      }
    if (S.Kind != StatementKind::Instruction) {
      B.copy(S);
      continue;
    }
    std::string_view Opcode = M.text(S.Text);
    auto Original = M.operands(S);
    std::vector<Operand> Ops(Original.begin(), Original.end());
    bool Changed = false;
    size_t FirstArg = (S.Flags & StatementHasGuard) ? 1 : 0;
    for (size_t I = FirstArg; I < Ops.size(); ++I)
      if (auto New = replaceBlockIndex(B, Ops[I], Names, Exits)) {
        Ops[I] = *New;
        Changed = true;
      }
    std::vector<Operand> Guard(Ops.begin(), Ops.begin() + FirstArg);

    // Rewrite exits: the thread's virtual block ends, the worker goes on.
    if (Exits && isExit(Opcode)) {
      Guard.push_back(B.sym(Exits->ExitLabel));
      bool Uniform = hasModifier(Opcode, ".uni");
      B.instWithOperands(B.text(Uniform ? "bra.uni" : "bra"), Guard, S.Flags);
      continue;
    }
    // Rewrite barriers: full-CTA barriers become reductions on the drain
    // barrier, which threads that already left their block keep joining.
    if (Exits && Exits->DrainBarrier) {
      auto Barrier = classifyBarrier(M, S);
      if (Barrier && Barrier->isFullCtaSync()) {
        Guard.push_back(B.sym(Exits->IgnoredPredicate));
        Guard.push_back(B.imm(*Exits->DrainBarrier));
        Guard.push_back(B.sym(Exits->FalsePredicate));
        B.instWithOperands(B.text("barrier.red.and.pred"), Guard, S.Flags);
        continue;
      }
    }
    if (isCall(Opcode)) {
      const Operand *Callee = directCallee(M, S);
      int C = Callee ? CG.lookup(M.text(Callee->Text)) : -1;
      if (C >= 0 && CG.readsBlockIndex(static_cast<uint32_t>(C))) {
        uint32_t CalleeIndex =
            static_cast<uint32_t>(Callee - &M.Operands[S.First]);
        emitRedirectedCall(B, S, std::move(Ops), CalleeIndex,
                           M.Functions[C], virtualCalleeName(M, CG, M.Functions[C]),
                           Names);
        continue;
      }
    }
    if (!Changed) {
      B.copy(S);
      continue;
    }
    // ptxas lets a 16-bit mov read a 32-bit special register (old nvcc
    // emits `mov.u16 %rh1, %ctaid.x;`) but not the 32-bit register that
    // replaces it. Unpacking the low half keeps the value, into a register
    // of any 16-bit type (.f16 too, which a cvt.u16 cannot write).
    if ((Opcode == "mov.u16" || Opcode == "mov.s16" || Opcode == "mov.b16") &&
        Ops.size() == FirstArg + 2) {
      const Operand Halves[] = {Ops[FirstArg], B.sink()};
      Ops[FirstArg] = B.vector(Halves);
      B.instWithOperands(B.text("mov.b32"), Ops, S.Flags);
    } else {
      B.instWithOperands(S.Text, Ops, S.Flags);
    }
  }
}

std::vector<std::string>
VirtualCallees::cloneFor(std::span<const uint32_t> Reachable) {
  std::vector<std::string> Cloned;
  for (uint32_t F : Reachable) {
    if (!CG.readsBlockIndex(F) || !M.Functions[F].HasBody)
      continue;
    Cloned.push_back(std::string(M.text(M.Functions[F].Name)));
    if (CloneOf.count(F))
      continue;
    uint32_t Proto = static_cast<uint32_t>(M.Functions.size());
    CloneOf[F] = {Proto, Proto + 1};
    Order.push_back(F);
    // Copy the header before push_back can move the original.
    Function Header = M.Functions[F];
    bool RegisterParams = usesRegisterParams(M, Header);
    Header.IsEntry = false;
    Header.Linkage.clear();
    Header.Name = M.intern(virtualCalleeName(M, CG, Header));
    Header.HasParamList = true;
    for (const std::string &P : cloneParamNames(Names, RegisterParams)) {
      Param Extra;
      Extra.Qualifiers = {M.intern(RegisterParams ? ".reg" : ".param"),
                          M.intern(".b32")};
      Extra.Name = M.intern(P);
      Header.Params.push_back(Extra);
    }
    Header.HasBody = false;
    Header.BodyBegin = Header.BodyEnd = 0;
    M.Functions.push_back(Header);
    Header.HasBody = true;
    M.Functions.push_back(Header);
    buildClone(F, Proto + 1);
  }
  return Cloned;
}

void VirtualCallees::buildClone(uint32_t Original, uint32_t Clone) {
  StatementBuilder B(M);
  bool RegisterParams = usesRegisterParams(M, M.Functions[Original]);
  if (!RegisterParams) {
    std::array<std::string, 6> Regs;
    for (size_t I = 0; I < 3; ++I) {
      Regs[I] = Names.CtaId[I];
      Regs[I + 3] = Names.NCtaId[I];
    }
    B.decl(".reg", {".b32"}, Regs);
    auto Params = cloneParamNames(Names, false);
    for (size_t I = 0; I < 6; ++I)
      B.inst("ld.param.u32", {B.sym(Regs[I]), B.address(B.sym(Params[I]))});
  }
  rewriteBody(B, M.Functions[Original], CG, Names, nullptr);
  auto [Begin, End] = B.commit();
  M.Functions[Clone].BodyBegin = Begin;
  M.Functions[Clone].BodyEnd = End;
}

std::vector<Item> VirtualCallees::items() const {
  std::vector<Item> Items;
  for (uint32_t F : Order)
    Items.push_back(Item{ItemKind::Function, CloneOf.at(F).first, {}});
  for (uint32_t F : Order)
    Items.push_back(Item{ItemKind::Function, CloneOf.at(F).second, {}});
  return Items;
}

} // namespace baton::detail
