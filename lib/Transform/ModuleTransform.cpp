//===- ModuleTransform.cpp - Add Baton variants to a module ---------------===//
//
// The driver: find kernels -> check safety -> clone -> virtualise block index
// -> wrap in slice / PTB loop -> rewrite exits and barriers. New functions
// are appended after everything the module had, callee clones (prototypes
// first, so clones may call each other) before the kernel variants.
//
//===----------------------------------------------------------------------===//
#include "baton/Transform/Transform.h"

#include "CallGraph.h"
#include "IsaLevel.h"
#include "ParamSpace.h"
#include "SafetyAnalysis.h"
#include "Variants.h"

#include <unordered_set>

namespace baton {

using namespace ptx;
using namespace detail;

namespace {

Diagnostic refusalDiagnostic(const Module &M, const KernelResult &K,
                             const Refusal &R) {
  Diagnostic D;
  D.Level = Severity::Warning;
  D.File = M.fileName();
  D.Line = R.Line;
  D.Column = R.Column;
  std::string Variants = refusalIsPtbOnly(R.Kind) ? "no ptb variant"
                                                  : "no variants";
  std::string Where =
      R.Function == K.Name ? "" : " (in function '" + R.Function + "')";
  D.Message = "kernel '" + K.Name + "' gets " + Variants + Where + ": " +
              R.Message + " [" + std::string(refusalKindName(R.Kind)) + "]";
  return D;
}

/// Every name the module declares or uses, for choosing fresh names. Verbatim
/// directives and debug sections are split into words conservatively.
std::vector<std::string_view> identifiersOf(const Module &M) {
  std::vector<std::string_view> Names;
  for (const Function &F : M.Functions) {
    Names.push_back(M.text(F.Name));
    for (const Param &P : F.Params)
      Names.push_back(M.text(P.Name));
    for (const Param &P : F.Returns)
      Names.push_back(M.text(P.Name));
  }
  for (const VarDecl &D : M.Decls)
    for (const DeclaredName &N : D.Names)
      Names.push_back(M.text(N.Name));
  for (const Operand &Op : M.Operands)
    if (Op.Kind == OperandKind::Symbol || Op.Kind == OperandKind::Guard)
      Names.push_back(M.text(Op.Text));
  auto Words = [&](std::string_view Text) {
    size_t Pos = 0;
    while ((Pos = Text.find_first_of("%$_abcdefghijklmnopqrstuvwxyz"
                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                                     Pos)) != std::string_view::npos) {
      size_t End = Text.find_first_of(" \t\n\r,;:{}()[]+-*/<>=\"", Pos);
      Names.push_back(Text.substr(Pos, End - Pos));
      if (End == std::string_view::npos)
        break;
      Pos = End;
    }
  };
  for (const Statement &S : M.Statements)
    if (S.Kind == StatementKind::Label || S.Kind == StatementKind::Directive)
      Words(M.text(S.Text));
  for (const Item &I : M.Items)
    if (I.Kind == ItemKind::Section || I.Kind == ItemKind::Directive)
      Words(M.text(I.Text));
  return Names;
}

/// `.weak .global .align 1 .b8 <ptb variant>__abi<version>;`: the PTB
/// variant's ABI marker (task.h), which tells the runtime it takes first
/// shares.
Item abiMarkerDecl(Module &M, std::string_view Name) {
  VarDecl D;
  D.Linkage = {M.intern(".weak")};
  D.Space = M.intern(".global");
  D.Qualifiers = {M.intern(".align"), M.intern("1"), M.intern(".b8")};
  DeclaredName N;
  N.Name = M.intern(Name);
  D.Names.push_back(N);
  M.Decls.push_back(std::move(D));
  return Item{ItemKind::Variable, static_cast<uint32_t>(M.Decls.size() - 1), {}};
}

/// `.extern .shared .align 16 .b8 <prefix>_dynamic_smem[];`: every extern
/// shared array starts where dynamic shared memory starts.
Item dynamicSharedDecl(Module &M, const GeneratedNames &Names) {
  VarDecl D;
  D.Linkage = {M.intern(".extern")};
  D.Space = M.intern(".shared");
  D.Qualifiers = {M.intern(".align"), M.intern("16"), M.intern(".b8")};
  DeclaredName N;
  N.Name = M.intern(Names.symbol("dynamic_smem"));
  N.Suffix = M.intern("[]");
  D.Names.push_back(N);
  M.Decls.push_back(std::move(D));
  return Item{ItemKind::Variable, static_cast<uint32_t>(M.Decls.size() - 1), {}};
}

bool refusesAll(const std::vector<Refusal> &Refusals) {
  for (const Refusal &R : Refusals)
    if (!refusalIsPtbOnly(R.Kind))
      return true;
  return false;
}

/// The variants' .maxnreg: the caller's budget, within the kernel's own.
std::optional<uint32_t> variantMaxNReg(const TransformOptions &Opts,
                                       const KernelResult &KR) {
  if (!Opts.RegisterBudget || KR.Facts.MinNCtaPerSm)
    return KR.Facts.MaxNReg;
  std::optional<uint32_t> Budget = Opts.RegisterBudget(KR.Name, KR.Facts);
  if (!Budget || (KR.Facts.MaxNReg && *KR.Facts.MaxNReg <= *Budget))
    return KR.Facts.MaxNReg;
  return Budget;
}

} // namespace

TransformResult transformModule(Module &M, const TransformOptions &Opts) {
  TransformResult Result;
  CallGraph CG(M);
  GeneratedNames Names(freshPrefix(identifiersOf(M)));
  VirtualCallees Callees(M, CG, Names);
  KernelFactsAnalysis Facts(M);
  std::vector<Item> VariantItems;

  std::unordered_set<std::string_view> Existing;
  for (const Function &F : M.Functions)
    Existing.insert(M.text(F.Name));
  for (const VarDecl &D : M.Decls)
    for (const DeclaredName &N : D.Names)
      Existing.insert(M.text(N.Name));
  const bool Sm1x = targetsSm1x(M);
  const bool Address32 = hasAddressSize32(M);
  const VarDecl *ModuleScopeState = moduleScopeRegisterOrLocal(M);
  const uint64_t ParamLimit = paramSpaceLimit(M);

  const uint32_t NumOriginal = static_cast<uint32_t>(M.Functions.size());
  for (uint32_t K = 0; K < NumOriginal; ++K) {
    // Find kernels: definitions of .entry functions that are not variants.
    const Function &Kernel = M.Functions[K];
    if (!Kernel.IsEntry || !Kernel.HasBody ||
        isVariantName(M.text(Kernel.Name)))
      continue;
    KernelResult KR;
    KR.Name = std::string(M.text(Kernel.Name));
    KR.Line = Kernel.Line;
    KR.Selected = !Opts.SelectKernel || Opts.SelectKernel(KR.Name);
    std::vector<uint32_t> Reachable = CG.reachableFrom(K);
    KR.Facts = Facts.compute(Kernel, Reachable);
    if (!KR.Selected) {
      Result.Kernels.push_back(std::move(KR));
      continue;
    }

    // Check safety.
    KR.Refusals = checkSafety(M, CG, K, Reachable);
    if (Sm1x)
      KR.Refusals.push_back(refusalAt(
          M, RefusalKind::Sm1xTarget, Kernel, nullptr,
          "the module targets sm_1x: the variants need instructions of "
          "sm_20 or later, where its floating-point rules (f32 subnormals "
          "flushed, mad.f32 without rounding, f64 mapped to f32) no longer "
          "hold"));
    if (ModuleScopeState)
      KR.Refusals.push_back(refusalAt(
          M, RefusalKind::ModuleScopeState, Kernel, nullptr,
          "the module declares '" +
              std::string(M.text(ModuleScopeState->Names.front().Name)) +
              std::string(M.text(ModuleScopeState->Names.front().Suffix)) +
              "' in the " + std::string(M.text(ModuleScopeState->Space)) +
              " state space at module scope (line " +
              std::to_string(ModuleScopeState->Line) +
              "), which ptxas takes only up to PTX 2.3, and the PTB variant "
              "needs PTX 6.0"));
    if (Address32)
      KR.Refusals.push_back(refusalAt(
          M, RefusalKind::AddressSize32, Kernel, nullptr,
          "the module addresses memory with 32 bits (.address_size 32), and "
          "the variants' task pointer is a 64-bit global address"));
    auto Bytes = paramBytes(M, Kernel);
    if (auto *Unread = std::get_if<std::string_view>(&Bytes))
      KR.Refusals.push_back(refusalAt(
          M, RefusalKind::ParamSpace, Kernel, nullptr,
          "declares parameter '" + std::string(*Unread) +
              "' in a form whose size is not known here, so whether the "
              "variants' 8-byte task pointer fits the parameter space is "
              "not known"));
    else if (uint64_t Taken = std::get<uint64_t>(Bytes);
             paramBytesWithTask(Taken) > ParamLimit)
      KR.Refusals.push_back(refusalAt(M, RefusalKind::ParamSpace, Kernel,
                                      nullptr,
                                      paramSpaceMessage(Taken, ParamLimit)));
    for (const std::string &Name : namesAddedFor(KR.Name)) {
      if (Existing.count(Name)) {
        KR.Refusals.push_back(
            refusalAt(M, RefusalKind::NameCollision, Kernel, nullptr,
                      "the module already defines '" + Name + "'"));
        break;
      }
    }
    bool Slice = Opts.MakeSlice && !refusesAll(KR.Refusals);
    bool Ptb = Opts.MakePtb && KR.Refusals.empty();
    std::optional<BarrierPlan> Plan;
    if (Ptb) {
      Refusal Why;
      Plan = planBarriers(M, M.Functions[K], Why);
      if (!Plan) {
        KR.Refusals.push_back(Why);
        Ptb = false;
      }
    }

    // Clone, virtualise the block index, wrap, rewrite exits and barriers.
    if (Slice || Ptb) {
      KR.VirtualCallees = Callees.cloneFor(Reachable);
      KR.VariantMaxNReg = variantMaxNReg(Opts, KR);
      VariantRequest Req{K, blockIndexUse(M, CG, K, Reachable), CG, Names,
                         KR.VariantMaxNReg};
      if (Slice) {
        auto [Index, Added] = buildSliceVariant(M, Req);
        VariantItems.push_back(Item{ItemKind::Function, Index, {}});
        KR.RegistersAdded[0] = Added;
        KR.SliceMade = true;
      }
      if (Ptb) {
        auto [Index, Added] = buildPtbVariant(M, Req, *Plan);
        VariantItems.push_back(Item{ItemKind::Function, Index, {}});
        VariantItems.push_back(abiMarkerDecl(M, abiMarkerName(KR.Name)));
        KR.RegistersAdded[1] = Added;
        KR.PtbMade = true;
      }
    }
    for (const Refusal &R : KR.Refusals)
      Result.Diagnostics.push_back(refusalDiagnostic(M, KR, R));
    Result.Kernels.push_back(std::move(KR));
  }

  std::vector<Item> CloneItems = Callees.items();
  bool AnyPtb = false, AnySlice = false;
  for (const KernelResult &K : Result.Kernels) {
    AnyPtb |= K.PtbMade;
    AnySlice |= K.SliceMade;
  }
  if (AnyPtb) // PTB slots live at the end of dynamic shared memory
    CloneItems.insert(CloneItems.begin(), dynamicSharedDecl(M, Names));
  if (AnyPtb || AnySlice)
    raiseIsaLevel(M, AnyPtb ? PtbIsaLevel : SliceIsaLevel);
  M.Items.insert(M.Items.end(), CloneItems.begin(), CloneItems.end());
  M.Items.insert(M.Items.end(), VariantItems.begin(), VariantItems.end());
  return Result;
}

} // namespace baton
