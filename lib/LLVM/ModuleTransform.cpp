//===- ModuleTransform.cpp - Add Baton variants to an NVPTX module --------===//
//
// The driver: find kernels -> check safety -> clone -> virtualise block index
// -> wrap in slice / PTB loop -> rewrite exits and barriers. New functions
// are appended after everything the module had, kernel by kernel: the
// __baton_vb clones the kernel needs first (once per module), then its slice
// and PTB variants. The first PTB variant also adds the extern shared array
// its slots live in.
//
//===----------------------------------------------------------------------===//
#include "ModuleTransform.h"

#include "CallGraph.h"
#include "SafetyAnalysis.h"
#include "Variants.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "baton"

STATISTIC(NumKernels, "Kernels found");
STATISTIC(NumSlice, "Slice variants made");
STATISTIC(NumPtb, "PTB variants made");
STATISTIC(NumRefusals, "Refusals reported");
STATISTIC(NumVirtualCallees, "Device functions cloned as __baton_vb");

using namespace llvm;

namespace baton::ir {

namespace {

/// A refusal as a warning: "kernel 'K' gets no variants: ... [kind]", at the
/// construct's debug location when the module has one.
class RefusalDiagnostic : public DiagnosticInfoWithLocationBase {
public:
  RefusalDiagnostic(const Function &Fn, const DiagnosticLocation &Loc,
                    std::string Msg)
      : DiagnosticInfoWithLocationBase(
            static_cast<DiagnosticKind>(kind()), DS_Warning, Fn, Loc),
        Msg(std::move(Msg)) {}
  void print(DiagnosticPrinter &DP) const override {
    if (isLocationAvailable())
      DP << getLocationStr() << ": ";
    DP << Msg;
  }
  static int kind() {
    static const int Kind = getNextAvailablePluginDiagnosticKind();
    return Kind;
  }

private:
  std::string Msg;
};

std::string refusalMessage(const KernelResult &K, const Refusal &R) {
  std::string Variants =
      refusalIsPtbOnly(R.Kind) ? "no ptb variant" : "no variants";
  std::string Where =
      R.Function == K.Name ? "" : " (in function '" + R.Function + "')";
  return "kernel '" + K.Name + "' gets " + Variants + Where + ": " +
         R.Message + " [" + std::string(refusalKindName(R.Kind)) + "]";
}

void diagnose(const Function &Kernel, const KernelResult &K,
              const FoundRefusal &R) {
  const Function &In = R.In ? *R.In : Kernel;
  DiagnosticLocation Loc;
  if (R.Loc)
    Loc = DiagnosticLocation(R.Loc);
  else if (const DISubprogram *SP = In.getSubprogram())
    Loc = DiagnosticLocation(SP);
  Kernel.getContext().diagnose(
      RefusalDiagnostic(In, Loc, refusalMessage(K, R.What)));
}

/// Kernels the source opts out of with __attribute__((annotate("baton_skip"))).
DenseSet<const Function *> annotatedSkip(Module &M) {
  DenseSet<const Function *> Skip;
  auto *Annotations = M.getNamedGlobal("llvm.global.annotations");
  if (!Annotations || !Annotations->hasInitializer())
    return Skip;
  auto *Entries = dyn_cast<ConstantArray>(Annotations->getInitializer());
  if (!Entries)
    return Skip;
  for (Value *Op : Entries->operands()) {
    auto *Entry = dyn_cast<ConstantStruct>(Op);
    if (!Entry || Entry->getNumOperands() < 2)
      continue;
    auto *Annotated = dyn_cast<Function>(Entry->getOperand(0)->stripPointerCasts());
    auto *Text = dyn_cast<GlobalVariable>(Entry->getOperand(1)->stripPointerCasts());
    if (!Annotated || !Text || !Text->hasInitializer())
      continue;
    if (auto *Str = dyn_cast<ConstantDataSequential>(Text->getInitializer()))
      if (Str->isCString() && Str->getAsCString() == "baton_skip")
        Skip.insert(Annotated);
  }
  return Skip;
}

/// "nvvm.maxntid"="256,1" -> {256, 1, 1}.
std::optional<std::array<uint32_t, 3>> dims(const Function &K, StringRef Attr) {
  if (!K.hasFnAttribute(Attr))
    return std::nullopt;
  std::array<uint32_t, 3> D = {1, 1, 1};
  StringRef Rest = K.getFnAttribute(Attr).getValueAsString();
  for (uint32_t &X : D) {
    auto [Head, Tail] = Rest.split(',');
    if (Head.trim().empty() || Head.trim().getAsInteger(10, X))
      break;
    Rest = Tail;
  }
  return D;
}

std::optional<uint32_t> number(const Function &K, StringRef Attr) {
  uint32_t N;
  if (!K.hasFnAttribute(Attr) ||
      K.getFnAttribute(Attr).getValueAsString().getAsInteger(10, N))
    return std::nullopt;
  return N;
}

KernelFacts launchFacts(const Function &K) {
  KernelFacts F;
  F.ReqNTid = dims(K, "nvvm.reqntid");
  F.MaxNTid = dims(K, "nvvm.maxntid");
  F.MinNCtaPerSm = number(K, "nvvm.minctasm");
  F.MaxNReg = number(K, "nvvm.maxnreg");
  return F;
}

/// `@<prefix>_dynamic_smem = external addrspace(3) global [0 x i8], align
/// 16`: every extern shared array starts where dynamic shared memory starts.
GlobalVariable *dynamicSharedArray(Module &M) {
  std::vector<std::string> Owned;
  for (const GlobalValue &G : M.global_values())
    Owned.push_back(G.getName().str());
  std::vector<std::string_view> Names(Owned.begin(), Owned.end());
  std::string Name = freshPrefix(Names) + "_dynamic_smem";
  auto *Ty = ArrayType::get(Type::getInt8Ty(M.getContext()), 0);
  auto *G = new GlobalVariable(M, Ty, /*isConstant=*/false,
                               GlobalValue::ExternalLinkage, nullptr, Name,
                               nullptr, GlobalValue::NotThreadLocal,
                               /*AddressSpace=*/3);
  G->setAlignment(Align(16));
  return G;
}

/// `.weak .global .align 1 .b8 <ptb variant>__abi<version>`: the PTB
/// variant's ABI marker (task.h), which tells the runtime it takes first
/// shares.
void abiMarker(Module &M, StringRef Name) {
  auto *Byte = Type::getInt8Ty(M.getContext());
  auto *G = new GlobalVariable(M, Byte, /*isConstant=*/false,
                               GlobalValue::WeakAnyLinkage,
                               ConstantInt::get(Byte, 0), Name, nullptr,
                               GlobalValue::NotThreadLocal,
                               /*AddressSpace=*/1);
  G->setAlignment(Align(1));
}

bool refusesAll(const std::vector<FoundRefusal> &Refusals) {
  return any_of(Refusals, [](const FoundRefusal &R) {
    return !refusalIsPtbOnly(R.What.Kind);
  });
}

} // namespace

TransformResult transformModule(Module &M, const TransformOptions &Opts,
                                TransformMode Mode) {
  TransformResult Result;
  CallGraph CG(M);
  VirtualCallees Callees(M, CG);
  DenseSet<const Function *> Skip = annotatedSkip(M);
  GlobalVariable *DynamicShared = nullptr;

  // Find kernels: definitions with the ptx_kernel calling convention that
  // are not variants, in module order (taken before any variant is added).
  SmallVector<Function *, 8> Kernels;
  for (Function &F : M)
    if (isKernel(F) && !F.isDeclaration() && !isVariantName(F.getName().str()))
      Kernels.push_back(&F);

  for (Function *Kernel : Kernels) {
    ++NumKernels;
    KernelResult KR;
    KR.Name = Kernel->getName().str();
    if (const DISubprogram *SP = Kernel->getSubprogram())
      KR.Line = SP->getLine();
    KR.Selected = !Skip.contains(Kernel) &&
                  (!Opts.SelectKernel || Opts.SelectKernel(KR.Name));
    KR.Facts = launchFacts(*Kernel);
    if (!KR.Selected) {
      LLVM_DEBUG(dbgs() << "baton: " << KR.Name << " not selected\n");
      Result.Kernels.push_back(std::move(KR));
      continue;
    }

    // Check safety.
    std::vector<Function *> Reachable = CG.reachableFrom(*Kernel);
    std::vector<FoundRefusal> Refusals = checkSafety(*Kernel, CG, Reachable);
    for (const std::string &Name : namesAddedFor(KR.Name)) {
      if (M.getNamedValue(Name)) {
        FoundRefusal R;
        R.What.Kind = RefusalKind::NameCollision;
        R.What.Function = KR.Name;
        R.What.Line = KR.Line;
        R.What.Message = "the module already defines '" + Name + "'";
        R.In = Kernel;
        Refusals.push_back(R);
        break;
      }
    }
    bool Slice = Opts.MakeSlice && !refusesAll(Refusals);
    bool Ptb = Opts.MakePtb && Refusals.empty();
    std::optional<BarrierPlan> Plan;
    if (Ptb) {
      FoundRefusal Why;
      Plan = planBarriers(*Kernel, Why);
      if (!Plan) {
        Refusals.push_back(Why);
        Ptb = false;
      }
    }
    for (const FoundRefusal &R : Refusals)
      KR.Refusals.push_back(R.What);
    LLVM_DEBUG(dbgs() << "baton: " << KR.Name << ": slice " << Slice
                      << ", ptb " << Ptb << ", " << Refusals.size()
                      << " refusal(s)\n");

    if (Mode != TransformMode::Plan)
      for (const FoundRefusal &R : Refusals) {
        ++NumRefusals;
        diagnose(*Kernel, KR, R);
      }
    // Clone, virtualise the block index, wrap, rewrite exits and barriers.
    if (Mode == TransformMode::Build) {
      if (Slice || Ptb) {
        KR.VirtualCallees = Callees.cloneFor(Reachable);
        NumVirtualCallees += KR.VirtualCallees.size();
      }
      VariantRequest Req{*Kernel, blockIndexUse(*Kernel, CG, Reachable), CG,
                         Callees};
      if (Slice) {
        buildSliceVariant(Req);
        ++NumSlice;
      }
      if (Ptb) {
        if (!DynamicShared) // PTB slots live at the end of dynamic smem
          DynamicShared = dynamicSharedArray(M);
        buildPtbVariant(Req, *Plan, *DynamicShared);
        abiMarker(M, abiMarkerName(KR.Name));
        ++NumPtb;
      }
    }
    // Plan reports what would be made; Check made nothing in this module.
    KR.SliceMade = Slice && Mode != TransformMode::Check;
    KR.PtbMade = Ptb && Mode != TransformMode::Check;
    Result.Kernels.push_back(std::move(KR));
  }
  return Result;
}

} // namespace baton::ir
