//===- SafetyAnalysis.cpp - Decide which variants a kernel may have -------===//
//
// The same rules as lib/Transform/SafetyAnalysis.cpp (docs/refusals.md has
// the user-facing version), read off intrinsics instead of PTX operands:
// - Grid-wide sync needs every block of the grid resident at once; cooperative
//   groups reach the grid workspace through %envreg (clang emits it as inline
//   PTX) or cudaCG*; a barrier written by hand is a wait for a counter to
//   reach a number computed from the grid size (GridWideWait.h).
// - Cluster registers, barriers and launch attributes describe the physical
//   launch, which a variant does not preserve; so do the CTA ids that cluster
//   launch control hands over.
// - Device-side launches and the device runtime API tie child grids to the
//   parent's blocks.
// - %smid/%nsmid/%gridid differ between a launch and its resumption, and
//   %current_graph_exec names a device graph a variant's launch is not in.
// - External and indirect calls hide code that may read the block index,
//   as does an indirect call while the module takes the address of a
//   function it only declares.
// - Inline PTX is opaque to the rewrite: reading %ctaid/%nctaid there cannot
//   be virtualised (block-id-vector). An asm statement that is exactly one
//   `exit;`, one barrier (literal or `$N` operands, no result), or one move
//   of %dynamic_smem_size is treated like the intrinsic; exits, barriers
//   and that register mixed with other PTX cannot be redirected to the
//   worker loop or corrected (PTB only).
// - A kernel whose IR returns a value has nothing a variant could return.
// - For PTB only: exits and barriers inside callees, barrier ids that are not
//   constants, barrier reductions, setmaxnreg, giving up the permit to
//   allocate tensor memory, the shared memory sizes a PTB launch changes,
//   and recursive callees, as on the PTX side.
//
//===----------------------------------------------------------------------===//
#include "SafetyAnalysis.h"

#include "BarrierDivergence.h"
#include "GridWideWait.h"
#include "InstructionInfo.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace baton::ir {

bool isKernel(const Function &F) {
  return F.getCallingConv() == CallingConv::PTX_Kernel;
}

namespace {

/// The externs both front ends accept (Refusal.h), and __nvvm_reflect,
/// which the backend's NVVMReflect folds to a constant.
bool isKnownSafeExternal(StringRef Name) {
  return Name == "__nvvm_reflect" || baton::isKnownSafeExternal(Name);
}

/// A bulk copy that multicasts to the CTAs of a cluster, or copies for a
/// CTA pair: `.mc` forms, and copies whose multicast flag (the i1 after
/// their i16 CTA mask and i64 cache hint) is not a constant false, or whose
/// trailing cta_group operand (tensor copies into shared memory) may be 2.
bool bulkCopyNeedsCluster(const CallBase &CB, StringRef Name) {
  if (Name.contains(".mc."))
    return true;
  if (!Name.starts_with("llvm.nvvm.cp.async.bulk."))
    return false;
  auto Is = [](const Value *V, uint64_t Expected) {
    const auto *C = dyn_cast<ConstantInt>(V);
    return C && C->getValue() == Expected;
  };
  unsigned N = CB.arg_size();
  for (unsigned I = 0; I + 2 < N; ++I)
    if (CB.getArgOperand(I)->getType()->isIntegerTy(16) &&
        CB.getArgOperand(I + 1)->getType()->isIntegerTy(64) &&
        CB.getArgOperand(I + 2)->getType()->isIntegerTy(1) &&
        !Is(CB.getArgOperand(I + 2), 0))
      return true;
  return Name.contains(".tensor.g2s.") && N > 0 &&
         CB.getArgOperand(N - 1)->getType()->isIntegerTy(32) &&
         !Is(CB.getArgOperand(N - 1), 0) && !Is(CB.getArgOperand(N - 1), 1);
}

constexpr const char *TensorMemoryPermitMessage =
    "gives up the CTA's permit to allocate tensor memory "
    "(tcgen05.relinquish_alloc_permit), after which a PTB worker could not "
    "allocate it for its next virtual block";

std::string printed(const Instruction &I) {
  std::string S;
  raw_string_ostream OS(S);
  I.print(OS);
  return StringRef(S).trim().str();
}

class SafetyChecker {
public:
  explicit SafetyChecker(const CallGraph &CG) : CG(CG) {}

  void checkFunction(Function &F, bool IsKernel);
  void checkKernelAttributes(Function &K);
  std::vector<FoundRefusal> take() { return std::move(Found); }

private:
  void checkCall(Function &F, CallBase &CB, bool IsKernel);
  void checkExitAndBarrier(Function &F, CallBase &CB, bool IsKernel);
  void checkInlineAsm(Function &F, CallBase &CB, StringRef Text,
                      bool IsKernel);
  void checkRegister(Function &F, CallBase &CB, StringRef Reg, bool IsKernel);
  void refuse(RefusalKind Kind, const Function &F, const Instruction *I,
              std::string Message);
  void refuseRecursion(const Function &F, const CallBase &CB,
                       const Function &Callee) {
    refuse(RefusalKind::Recursion, F, &CB,
           recursionMessage(Callee.getName()));
  }

  const CallGraph &CG;
  std::vector<FoundRefusal> Found;
};

void SafetyChecker::refuse(RefusalKind Kind, const Function &F,
                           const Instruction *I, std::string Message) {
  for (const FoundRefusal &R : Found)
    if (R.What.Kind == Kind)
      return; // one refusal per kind: the first occurrence
  Found.push_back(refusalAt(Kind, F, I, std::move(Message)));
}

void SafetyChecker::checkRegister(Function &F, CallBase &CB, StringRef Reg,
                                  bool IsKernel) {
  if (Reg == "%smid" || Reg == "%nsmid" || Reg == "%gridid")
    return refuse(RefusalKind::HardwareId, F, &CB,
                  "reads " + Reg.str() +
                      ", which differs between a launch and its resumption");
  if (Reg == "%current_graph_exec")
    return refuse(RefusalKind::HardwareId, F, &CB,
                  std::string(CurrentGraphExecMessage));
  if (Reg.starts_with("%cluster") || Reg.starts_with("%nclusterid") ||
      Reg == "%is_explicit_cluster")
    return refuse(RefusalKind::Cluster, F, &CB,
                  "reads the cluster register " + Reg.str());
  if (Reg.starts_with("%envreg"))
    return refuse(RefusalKind::GridSync, F, &CB,
                  "reads " + Reg.str() +
                      ", which the driver sets for each launch (cooperative "
                      "groups keep the grid-wide synchronisation workspace "
                      "there, NVIDIA's OpenCL its work offsets) and a "
                      "variant's launch does not reproduce");
  // The body's %dynamic_smem_size is corrected for the PTB launch's extra
  // bytes; a callee's cannot be, nor can the rounded sizes.
  if ((!IsKernel && Reg == "%dynamic_smem_size") ||
      isRoundedSharedMemorySize(Reg))
    refuse(RefusalKind::SharedMemorySize, F, &CB,
           "reads " + Reg.str() + (IsKernel ? "" : " inside a device function") +
               ", which a PTB launch changes");
}

void SafetyChecker::checkInlineAsm(Function &F, CallBase &CB, StringRef Text,
                                   bool IsKernel) {
  for (StringRef Reg : {"%smid", "%nsmid", "%gridid", "%current_graph_exec"})
    if (asmReadsRegister(Text, Reg))
      checkRegister(F, CB, Reg, IsKernel);
  for (std::string_view Reg : RoundedSharedMemorySizeRegisters)
    if (asmReadsRegister(Text, Reg))
      checkRegister(F, CB, Reg, IsKernel);
  if (asmReadsRegister(Text, "%dynamic_smem_size")) {
    if (!IsKernel)
      checkRegister(F, CB, "%dynamic_smem_size", IsKernel);
    else if (!readsDynamicSharedSize(CB)) // a lone mov is corrected
      refuse(RefusalKind::SharedMemorySize, F, &CB,
             "reads %dynamic_smem_size in inline assembly other than a lone "
             "mov, which a PTB launch changes and cannot be corrected there");
  }
  if (Text.contains("%cluster") || Text.contains("%nclusterid") ||
      Text.contains("%is_explicit_cluster") ||
      Text.contains("barrier.cluster") || asmHasInstruction(Text, "mapa") ||
      asmHasInstruction(Text, "getctarank") ||
      Text.contains("multicast::cluster") ||
      Text.contains("shared::cluster.shared::cta") ||
      Text.contains("cta_group::2") ||
      asmHasInstruction(Text, "clusterlaunchcontrol"))
    refuse(RefusalKind::Cluster, F, &CB,
           "uses thread-block clusters or cluster launch control in inline "
           "assembly");
  // An asm whose only effect is its result, left unused, reads nothing that
  // matters (the grid_group constructor's, where the grid is not synced).
  bool OnlyItsResult =
      !cast<InlineAsm>(CB.getCalledOperand())->hasSideEffects() &&
      CB.use_empty();
  if (Text.contains("%envreg") && !OnlyItsResult)
    refuse(RefusalKind::GridSync, F, &CB,
           "reads %envreg in inline assembly, which the driver sets for each "
           "launch (cooperative groups keep the grid-wide synchronisation "
           "workspace there) and a variant's launch does not reproduce");
  if ((asmReadsRegister(Text, "%ctaid") || asmReadsRegister(Text, "%nctaid")) &&
      !blockIndexRegister(CB))
    refuse(RefusalKind::BlockIdVector, F, &CB,
           "reads %ctaid or %nctaid in inline assembly other than one move "
           "of a component into the result, which cannot be virtualised");
  if (asmHasInstruction(Text, "setmaxnreg"))
    refuse(RefusalKind::RegisterReallocation, F, &CB,
           "reallocates registers with setmaxnreg, which a PTB worker would "
           "repeat in every virtual block");
  if (asmHasInstruction(Text, "tcgen05.relinquish_alloc_permit"))
    refuse(RefusalKind::TensorMemoryPermit, F, &CB, TensorMemoryPermitMessage);
  // A lone `exit;` or barrier is classified like the intrinsics (checkCall);
  // anything else mixing them with other PTX cannot be redirected.
  if (isExit(CB) || classifyBarrier(CB))
    return;
  if (asmHasInstruction(Text, "exit"))
    refuse(IsKernel ? RefusalKind::ExitOrBarrierInAsm
                    : RefusalKind::ExitInCallee,
           F, &CB,
           "calls exit in inline assembly among other PTX; a PTB worker "
           "cannot end only its virtual block from there");
  for (StringRef Barrier : {"bar.sync", "bar.arrive", "bar.red",
                            "barrier.sync", "barrier.arrive", "barrier.red",
                            "bar.cta", "barrier.cta"})
    if (asmHasInstruction(Text, Barrier))
      return IsKernel
                 ? refuse(RefusalKind::ExitOrBarrierInAsm, F, &CB,
                          "has a CTA barrier in inline assembly that is not "
                          "a lone bar/barrier instruction with operands it "
                          "can read; PTB workers redirect only barriers they "
                          "can read whole")
                 : refuse(RefusalKind::BarrierInCallee, F, &CB,
                          "has a CTA barrier inside a device function; PTB "
                          "workers redirect barriers in the kernel body "
                          "only");
}

void SafetyChecker::checkExitAndBarrier(Function &F, CallBase &CB,
                                        bool IsKernel) {
  if (!IsKernel && isExit(CB))
    return refuse(RefusalKind::ExitInCallee, F, &CB,
                  "calls exit inside a device function; a PTB worker "
                  "cannot end only its virtual block from there");
  auto Barrier = classifyBarrier(CB);
  if (!Barrier)
    return;
  if (!IsKernel)
    return refuse(RefusalKind::BarrierInCallee, F, &CB,
                  "has a CTA barrier inside a device function; PTB workers "
                  "redirect barriers in the kernel body only");
  if (!Barrier->Id)
    return refuse(RefusalKind::BarrierRegisterId, F, &CB,
                  "uses a barrier whose id is not a constant below 16");
  // A reduction barrier is checked with the kernel's barrier plan
  // (planBarriers): it is kept where no thread can leave before it.
}

void SafetyChecker::checkCall(Function &F, CallBase &CB, bool IsKernel) {
  if (CB.isInlineAsm()) {
    checkInlineAsm(F, CB, inlineAsmText(CB), IsKernel);
    return checkExitAndBarrier(F, CB, IsKernel);
  }

  Function *Callee = calledFunction(CB);
  // A call whose type differs from its callee's declaration still calls
  // that declaration: judge it as the external call it is.
  if (auto *Declared = dyn_cast<Function>(CB.getCalledOperand());
      !Callee && Declared && Declared->isDeclaration() &&
      !Declared->isIntrinsic())
    Callee = Declared;
  if (!Callee) {
    // An alias calledFunction does not follow is judged as a pointer.
    std::string Call = "makes an indirect call";
    if (auto *Alias = dyn_cast<GlobalAlias>(CB.getCalledOperand()))
      Call = "calls '" + Alias->getName().str() +
             "', an alias that " +
             (Alias->isInterposable()
                  ? "another module may replace"
                  : "does not lead to a function of the call's type") +
             ", as an indirect call";
    for (Function *Target : CG.addressTaken())
      if (CG.readsBlockIndex(*Target))
        return refuse(RefusalKind::IndirectCall, F, &CB,
                      Call + ", and '" + Target->getName().str() +
                          "', whose address is taken, reads the block index");
    for (Function *Target : CG.addressTaken())
      if (CG.isRecursive(*Target))
        return refuseRecursion(F, CB, *Target);
    // The callee may be a function declared here and defined elsewhere,
    // whose body cannot be checked; in a module linked with others, any
    // function of theirs.
    for (Function *Target : CG.declaredAddressTaken())
      if (!isKnownSafeExternal(Target->getName()))
        return refuse(RefusalKind::ExternalCall, F, &CB,
                      Call + ", and '" + Target->getName().str() +
                          "', whose address is taken, is declared but not "
                          "defined in this module, so it cannot be checked");
    for (const GlobalValue *Elsewhere : CG.declaredElsewhere())
      if (!isKnownSafeExternal(Elsewhere->getName()))
        return refuse(RefusalKind::ExternalCall, F, &CB,
                      linkedModuleCallMessage(Elsewhere->getName()));
    return;
  }
  if (Callee->isIntrinsic()) {
    StringRef Name = Callee->getName();
    if (std::string Reg = specialRegister(CB); !Reg.empty())
      return checkRegister(F, CB, Reg, IsKernel);
    if (Name.starts_with("llvm.nvvm.clusterlaunchcontrol"))
      return refuse(RefusalKind::Cluster, F, &CB,
                    "takes over CTAs of its launch with cluster launch "
                    "control ('" +
                        Name.drop_front(strlen("llvm.nvvm.")).str() +
                        "'), whose CTA ids are the variant's, not the "
                        "original's");
    // Bulk copies to a peer CTA's shared memory, and tcgen05 operations of
    // a CTA pair (cg2), need the cluster too.
    if (Name.starts_with("llvm.nvvm.barrier.cluster") ||
        Name.starts_with("llvm.nvvm.mapa") ||
        Name.starts_with("llvm.nvvm.getctarank") ||
        Name.starts_with("llvm.nvvm.is_explicit_cluster") ||
        Name.contains("multicast") || bulkCopyNeedsCluster(CB, Name) ||
        Name.starts_with("llvm.nvvm.cp.async.bulk.shared.cta.to.cluster") ||
        (Name.starts_with("llvm.nvvm.tcgen05.") && Name.contains("cg2")))
      return refuse(RefusalKind::Cluster, F, &CB,
                    "uses thread-block clusters ('" +
                        Name.drop_front(strlen("llvm.nvvm.")).str() + "')");
    if (Name.starts_with("llvm.nvvm.setmaxnreg"))
      return refuse(RefusalKind::RegisterReallocation, F, &CB,
                    "reallocates registers with setmaxnreg, which a PTB "
                    "worker would repeat in every virtual block");
    if (Name.starts_with("llvm.nvvm.tcgen05.relinq.alloc.permit"))
      return refuse(RefusalKind::TensorMemoryPermit, F, &CB,
                    TensorMemoryPermitMessage);
    return checkExitAndBarrier(F, CB, IsKernel);
  }
  if (!Callee->isDeclaration()) {
    if (CG.isRecursive(*Callee))
      refuseRecursion(F, CB, *Callee);
    return;
  }
  StringRef Name = Callee->getName();
  if (Name.starts_with("cudaCG"))
    return refuse(RefusalKind::GridSync, F, &CB,
                  "calls " + Name.str() +
                      " (cooperative groups grid synchronisation)");
  if (Name.starts_with("cuda") || Name.starts_with("__cuda"))
    return refuse(RefusalKind::DynamicParallelism, F, &CB,
                  "calls the device runtime function " + Name.str() +
                      " (dynamic parallelism)");
  if (!isKnownSafeExternal(Name))
    refuse(RefusalKind::ExternalCall, F, &CB,
           "calls '" + Name.str() +
               "', which is declared but not defined in this module, so it "
               "cannot be checked");
}

void SafetyChecker::checkFunction(Function &F, bool IsKernel) {
  // A weak (or linkonce, common) body may be replaced by another module's
  // at link time: what is checked here need not be what runs. ODR linkage
  // promises the same body everywhere.
  if (!IsKernel && F.isInterposable())
    refuse(RefusalKind::ExternalCall, F, nullptr,
           "reaches '" + F.getName().str() +
               "', whose linkage lets another module's definition replace "
               "it when linked, so the body checked here need not be the "
               "one that runs");
  for (Instruction &I : instructions(F)) {
    if (auto *CB = dyn_cast<CallBase>(&I))
      checkCall(F, *CB, IsKernel);
    // A callee's alloca is given back when it returns.
    if (auto *AI = dyn_cast<AllocaInst>(&I);
        AI && IsKernel && !isHoistableAlloca(*AI, F.getEntryBlock()))
      refuse(RefusalKind::DynamicStack, F, AI,
             std::string(DynamicStackMessage));
  }
  if (std::optional<GridWideWait> Wait = findGridWideWait(F))
    refuse(RefusalKind::GridSync, F, Wait->Branch, std::string(Wait->Message));
}

/// Bytes of parameter space \p K's arguments take in its PTX: each at its
/// alignment, a byval aggregate by its own type (and at least its `align`).
uint64_t paramBytes(const Function &K) {
  const DataLayout &DL = K.getParent()->getDataLayout();
  uint64_t Bytes = 0;
  for (const Argument &A : K.args()) {
    Type *ByVal = A.getParamByValType();
    Type *T = ByVal ? ByVal : A.getType();
    Align At = DL.getABITypeAlign(T);
    if (ByVal)
      At = std::max(At, A.getParamAlign().valueOrOne());
    Bytes = alignTo(Bytes, At) + DL.getTypeAllocSize(T).getFixedValue();
  }
  return Bytes;
}

/// The PTX ISA version and sm number llc will write \p K for, from the
/// target features and CPU clang gives it ("+ptx85", "sm_90a"); 0 for what
/// they do not say, which keeps the smaller parameter limit.
std::array<unsigned, 3> ptxLevel(const Function &K) {
  unsigned Ptx = 0, Sm = 0;
  StringRef Features = K.getFnAttribute("target-features").getValueAsString();
  for (StringRef Feature : split(Features, ',')) {
    unsigned Value = 0;
    if (Feature.consume_front("+ptx") && !Feature.getAsInteger(10, Value))
      Ptx = std::max(Ptx, Value);
  }
  StringRef Cpu = K.getFnAttribute("target-cpu").getValueAsString();
  if (Cpu.consume_front("sm_") &&
      Cpu.take_while([](char C) { return isDigit(C); }).getAsInteger(10, Sm))
    Sm = 0;
  return {Ptx / 10, Ptx % 10, Sm};
}

void SafetyChecker::checkKernelAttributes(Function &K) {
  for (StringRef Name : {"nvvm.cluster_dim", "nvvm.maxclusterrank",
                         "nvvm.blocksareclusters"})
    if (K.hasFnAttribute(Name))
      refuse(RefusalKind::Cluster, K, nullptr,
             "is declared with " + Name.str() + " (cluster launch)");
  if (!K.getReturnType()->isVoidTy()) {
    std::string Type;
    raw_string_ostream OS(Type);
    K.getReturnType()->print(OS);
    refuse(RefusalKind::ReturnsValue, K, nullptr,
           "returns a value (" + Type +
               "), which no launch receives and no variant can return");
  }
  // The variants append an 8-byte task pointer to the parameters; past the
  // limit ptxas puts on them the module would not assemble.
  auto [Major, Minor, Sm] = ptxLevel(K);
  uint64_t Limit = kernelParamSpaceLimit(Major, Minor, Sm);
  if (uint64_t Bytes = paramBytes(K); paramBytesWithTask(Bytes) > Limit)
    refuse(RefusalKind::ParamSpace, K, nullptr,
           paramSpaceMessage(Bytes, Limit));
}

} // namespace

FoundRefusal refusalAt(RefusalKind Kind, const Function &F,
                       const Instruction *I, std::string Message) {
  FoundRefusal R;
  R.What.Kind = Kind;
  R.What.Function = F.getName().str();
  R.What.Message = std::move(Message);
  R.In = &F;
  if (I) {
    R.What.Construct = printed(*I);
    // The line in F itself: for code inlined from a header, the call site.
    if (const DILocation *Loc = I->getDebugLoc().get()) {
      while (const DILocation *At = Loc->getInlinedAt())
        Loc = At;
      R.Loc = DebugLoc(Loc);
    }
  }
  if (R.Loc) {
    R.What.Line = R.Loc.getLine();
    R.What.Column = R.Loc.getCol();
  } else if (const DISubprogram *SP = F.getSubprogram()) {
    R.What.Line = SP->getLine();
  }
  return R;
}

std::vector<FoundRefusal> checkSafety(Function &Kernel, const CallGraph &CG,
                                      ArrayRef<Function *> Reachable) {
  SafetyChecker Checker(CG);
  Checker.checkKernelAttributes(Kernel);
  Checker.checkFunction(Kernel, /*IsKernel=*/true);
  for (Function *F : Reachable)
    Checker.checkFunction(*F, /*IsKernel=*/false);
  return Checker.take();
}

std::optional<BarrierPlan> planBarriers(Function &Kernel, FoundRefusal &Why) {
  BarrierPlanner Planner;
  const Instruction *Reduction = nullptr;
  for (Instruction &I : instructions(Kernel)) {
    auto *CB = dyn_cast<CallBase>(&I);
    auto B = CB ? classifyBarrier(*CB) : std::nullopt;
    if (!B || !B->Id)
      continue;
    // A reduction barrier keeps its id: barrier D must not be one that a
    // reduction uses too.
    Planner.note(*B->Id, B->isFullCtaSync());
    if (B->Op == BarrierUse::Reduce && !Reduction)
      Reduction = &I;
  }
  auto Plan = Planner.plan();
  if (!Plan) {
    Why = refusalAt(RefusalKind::NoFreeBarrier, Kernel, nullptr,
                    std::string(BarrierPlanner::NoFreeBarrierMessage));
    return std::nullopt;
  }
  if (const Instruction *At =
          Reduction ? threadsMayPartBeforeBarrier(Kernel,
                                                  BarrierTargets::Reductions)
                    : nullptr) {
    std::string Where = "threads may take different paths at a branch on a "
                        "value that may differ between them";
    if (const DILocation *Loc = At->getDebugLoc().get())
      Where += " (line " + std::to_string(Loc->getLine()) + ")";
    Why = refusalAt(RefusalKind::BarrierReduction, Kernel, Reduction,
                    barrierReductionMessage(Where));
    return std::nullopt;
  }
  Plan->Drain = Plan->Drain &&
                threadsMayPartBeforeBarrier(Kernel,
                                            BarrierTargets::AnyCtaBarrier);
  return Plan;
}

} // namespace baton::ir
