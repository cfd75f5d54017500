//===- SafetyAnalysis.cpp - Decide which variants a kernel may have -------===//
//
// What is refused, and why (docs/refusals.md has the user-facing version):
// - Grid-wide sync needs every block of the grid resident at once; a PTB
//   launch has fewer workers than blocks, so it would deadlock. Cooperative
//   groups reach the grid workspace through %envreg registers or cudaCG*;
//   a barrier written by hand is a wait for a counter to reach a number
//   computed from the grid size (GridWideWait.h).
// - Cluster registers and barriers describe the physical launch, which a
//   variant does not preserve; so do the CTA ids that cluster launch control
//   (clusterlaunchcontrol.try_cancel) hands over.
// - Device-side launches and the device runtime API (cudaLaunchDevice, ...)
//   tie child grids to the parent's blocks.
// - %smid/%nsmid/%gridid differ between a launch and its resumption, and
//   %current_graph_exec names a device graph a variant's launch is not in.
// - External and indirect calls hide code that may read the block index.
// - For PTB only: exits and barriers inside callees cannot be redirected to
//   the worker loop, barrier ids in registers and bar.red cannot be
//   reconciled with the early-exit protocol, setmaxnreg would run again in
//   every virtual block, a CTA that gives up its permit to allocate tensor
//   memory cannot allocate it for the next one, and a callee reading the
//   dynamic shared memory size, or any read of %total_smem_size or
//   %aggr_smem_size, would see
//   the PTB launch's larger allocation. ptxas miscompiles a recursive callee
//   inside the worker's loop (measured; docs/refusals.md, recursion). Stack
//   a kernel body allocates at run time (alloca) is given back only when
//   the kernel returns, which a worker does once, after all its blocks.
//
//===----------------------------------------------------------------------===//
#include "SafetyAnalysis.h"

#include "GridWideWait.h"
#include "InstructionInfo.h"
#include "baton/PTX/Printer.h"

namespace baton::detail {

using namespace ptx;

namespace {

class SafetyChecker {
public:
  SafetyChecker(const Module &M, const CallGraph &CG) : M(M), CG(CG) {}

  void checkFunction(uint32_t F, bool IsKernel);
  void checkKernelDirectives(const Function &K);
  std::vector<Refusal> take() { return std::move(Found); }

private:
  void checkInstruction(const Function &F, const Statement &S, bool IsKernel);
  void checkSymbol(const Function &F, const Statement &S, std::string_view Name);
  void refuse(RefusalKind Kind, const Function &F, const Statement *S,
              std::string Message);
  void refuseRecursion(const Function &F, const Statement &Call,
                       uint32_t Callee);

  const Module &M;
  const CallGraph &CG;
  std::vector<Refusal> Found;
};

void SafetyChecker::refuse(RefusalKind Kind, const Function &F,
                           const Statement *S, std::string Message) {
  for (const Refusal &R : Found)
    if (R.Kind == Kind)
      return; // one refusal per kind: the first occurrence
  Found.push_back(refusalAt(M, Kind, F, S, std::move(Message)));
}

void SafetyChecker::refuseRecursion(const Function &F, const Statement &Call,
                                    uint32_t Callee) {
  refuse(RefusalKind::Recursion, F, &Call,
         recursionMessage(M.text(M.Functions[Callee].Name)));
}

void SafetyChecker::checkSymbol(const Function &F, const Statement &S,
                                std::string_view Name) {
  if (!Name.starts_with('%'))
    return;
  if (Name == "%smid" || Name == "%nsmid" || Name == "%gridid")
    return refuse(RefusalKind::HardwareId, F, &S,
                  "reads " + std::string(Name) +
                      ", which differs between a launch and its resumption");
  if (Name == "%current_graph_exec")
    return refuse(RefusalKind::HardwareId, F, &S,
                  std::string(CurrentGraphExecMessage));
  if (Name.starts_with("%cluster") || Name.starts_with("%nclusterid") ||
      Name == "%is_explicit_cluster")
    return refuse(RefusalKind::Cluster, F, &S,
                  "reads the cluster register " + std::string(Name));
  if (Name.starts_with("%envreg"))
    return refuse(RefusalKind::GridSync, F, &S,
                  "reads " + std::string(Name) +
                      ", which the driver sets for each launch (cooperative "
                      "groups keep the grid-wide synchronisation workspace "
                      "there, NVIDIA's OpenCL its work offsets) and a "
                      "variant's launch does not reproduce");
  if (Name == "%ctaid" || Name == "%nctaid")
    return refuse(RefusalKind::BlockIdVector, F, &S,
                  "reads " + std::string(Name) +
                      " as a vector; only its .x/.y/.z components can be "
                      "virtualised");
}

void SafetyChecker::checkInstruction(const Function &F, const Statement &S,
                                     bool IsKernel) {
  std::string_view Opcode = M.text(S.Text);
  std::string_view Base = opcodeBase(Opcode);
  for (const Operand &Op : M.arguments(S))
    forEachSymbol(M, Op, [&](const Operand &Sym) {
      std::string_view Name = M.text(Sym.Text);
      checkSymbol(F, S, Name);
      // The body's %dynamic_smem_size is corrected for the PTB launch's extra
      // bytes; a callee's cannot be, nor can the rounded sizes.
      if ((!IsKernel && Name == "%dynamic_smem_size") ||
          isRoundedSharedMemorySize(Name))
        refuse(RefusalKind::SharedMemorySize, F, &S,
               "reads " + std::string(Name) +
                   (IsKernel ? "" : " inside a device function") +
                   ", which a PTB launch changes");
    });

  // Bulk copies from this CTA's shared memory to another's, and tcgen05
  // operations of a CTA pair (.cta_group::2), need the cluster too.
  bool ToPeerCta = Base == "cp" && hasModifier(Opcode, ".shared::cluster") &&
                   hasModifier(Opcode, ".shared::cta");
  if (isClusterBarrier(Opcode) || Base == "mapa" || Base == "getctarank" ||
      hasModifier(Opcode, ".multicast::cluster") || ToPeerCta ||
      hasModifier(Opcode, ".cta_group::2"))
    return refuse(RefusalKind::Cluster, F, &S,
                  "uses thread-block clusters ('" + std::string(Opcode) +
                      "')");
  if (Base == "clusterlaunchcontrol")
    return refuse(RefusalKind::Cluster, F, &S,
                  "takes over CTAs of its launch with cluster launch control "
                  "('" + std::string(Opcode) +
                      "'), whose CTA ids are the variant's, not the "
                      "original's");
  if (Base == "setmaxnreg")
    return refuse(RefusalKind::RegisterReallocation, F, &S,
                  "reallocates registers with setmaxnreg, which a PTB worker "
                  "would repeat in every virtual block");
  if (Opcode.starts_with("tcgen05.relinquish_alloc_permit"))
    return refuse(RefusalKind::TensorMemoryPermit, F, &S,
                  "gives up the CTA's permit to allocate tensor memory "
                  "(tcgen05.relinquish_alloc_permit), after which a PTB "
                  "worker could not allocate it for its next virtual block");

  if (isCall(Opcode)) {
    const Operand *Callee = directCallee(M, S);
    if (!Callee) {
      for (uint32_t Target : CG.addressTaken())
        if (CG.readsBlockIndex(Target))
          return refuse(RefusalKind::IndirectCall, F, &S,
                        "makes an indirect call, and '" +
                            std::string(M.text(M.Functions[Target].Name)) +
                            "', whose address is taken, reads the block "
                            "index");
      for (uint32_t Target : CG.addressTaken())
        if (CG.isRecursive(Target))
          return refuseRecursion(F, S, Target);
      // The callee may be a function declared here and defined elsewhere,
      // whose body cannot be checked; in a module linked with others, any
      // function of theirs.
      for (uint32_t Target : CG.addressTaken())
        if (std::string_view Name = M.text(M.Functions[Target].Name);
            !M.Functions[Target].HasBody && !isKnownSafeExternal(Name))
          return refuse(RefusalKind::ExternalCall, F, &S,
                        "makes an indirect call, and '" + std::string(Name) +
                            "', whose address is taken, is declared but not "
                            "defined in this module, so it cannot be checked");
      if (std::optional<std::string_view> Elsewhere = CG.definedElsewhere())
        return refuse(RefusalKind::ExternalCall, F, &S,
                      linkedModuleCallMessage(*Elsewhere));
      return;
    }
    std::string_view Name = M.text(Callee->Text);
    int C = CG.lookup(Name);
    if (C >= 0 && M.Functions[C].HasBody) {
      if (CG.isRecursive(static_cast<uint32_t>(C)))
        refuseRecursion(F, S, static_cast<uint32_t>(C));
      return;
    }
    if (Name.starts_with("cudaCG"))
      return refuse(RefusalKind::GridSync, F, &S,
                    "calls " + std::string(Name) +
                        " (cooperative groups grid synchronisation)");
    if (Name.starts_with("cuda") || Name.starts_with("__cuda"))
      return refuse(RefusalKind::DynamicParallelism, F, &S,
                    "calls the device runtime function " + std::string(Name) +
                        " (dynamic parallelism)");
    if (!isKnownSafeExternal(Name))
      return refuse(RefusalKind::ExternalCall, F, &S,
                    "calls '" + std::string(Name) +
                        "', which is declared but not defined in this "
                        "module, so it cannot be checked");
    return;
  }

  // A callee's alloca is given back when it returns; the kernel body's only
  // when the kernel does.
  if (IsKernel && Base == "alloca")
    return refuse(RefusalKind::DynamicStack, F, &S,
                  std::string(DynamicStackMessage));

  if (!IsKernel && Base == "exit")
    return refuse(RefusalKind::ExitInCallee, F, &S,
                  "calls exit inside a device function; a PTB worker cannot "
                  "end only its virtual block from there");

  auto Barrier = classifyBarrier(M, S);
  if (!Barrier)
    return;
  if (!IsKernel)
    return refuse(RefusalKind::BarrierInCallee, F, &S,
                  "has a CTA barrier inside a device function; PTB workers "
                  "redirect barriers in the kernel body only");
  if (!Barrier->Id)
    return refuse(RefusalKind::BarrierRegisterId, F, &S,
                  "uses a barrier whose id is not a constant below 16");
  // A reduction barrier is checked with the kernel's barrier plan
  // (planBarriers): it is kept where no thread can leave before it.
}

void SafetyChecker::checkFunction(uint32_t FIndex, bool IsKernel) {
  const Function &F = M.Functions[FIndex];
  for (const Statement &S : M.body(F))
    if (S.Kind == StatementKind::Instruction)
      checkInstruction(F, S, IsKernel);
  if (std::optional<GridWideWait> Wait = findGridWideWait(M, F))
    refuse(RefusalKind::GridSync, F, Wait->Branch, std::string(Wait->Message));
}

void SafetyChecker::checkKernelDirectives(const Function &K) {
  for (const FunctionDirective &D : K.Directives) {
    std::string_view Name = M.text(D.Name);
    if (Name != ".reqnctapercluster" && Name != ".explicitcluster" &&
        Name != ".maxclusterrank" && Name != ".blocksareclusters")
      continue;
    size_t Before = Found.size();
    refuse(RefusalKind::Cluster, K, nullptr,
           "is declared with " + std::string(Name) + " (cluster launch)");
    if (Found.size() == Before)
      continue;
    // At the directive, not the kernel's name: the construct is the line.
    Refusal &R = Found.back();
    R.Construct = std::string(Name);
    for (size_t I = 0; I < D.Values.size(); ++I)
      R.Construct += (I ? ", " : " ") + std::string(M.text(D.Values[I]));
    R.Line = M.lineOf(D.Name);
    R.Column = M.columnOf(D.Name);
  }
}

} // namespace

Refusal refusalAt(const Module &M, RefusalKind Kind, const Function &F,
                  const Statement *S, std::string Message) {
  Refusal R;
  R.Kind = Kind;
  R.Function = std::string(M.text(F.Name));
  R.Message = std::move(Message);
  if (S) {
    R.Construct = printStatement(M, *S);
    TextRef Where = S->Text;
    if (S->Kind == StatementKind::Instruction && S->Count > 0 &&
        (S->Flags & StatementHasGuard))
      Where = M.Operands[S->First].Text;
    R.Line = M.lineOf(Where);
    R.Column = M.columnOf(Where);
  } else if (uint32_t Line = M.lineOf(F.Name)) {
    R.Line = Line; // the kernel's name: the refusal concerns all of it
    R.Column = M.columnOf(F.Name);
  } else {
    R.Line = F.Line;
  }
  return R;
}

std::vector<Refusal> checkSafety(const Module &M, const CallGraph &CG,
                                 uint32_t Kernel,
                                 std::span<const uint32_t> Reachable) {
  SafetyChecker Checker(M, CG);
  Checker.checkKernelDirectives(M.Functions[Kernel]);
  Checker.checkFunction(Kernel, /*IsKernel=*/true);
  for (uint32_t F : Reachable)
    Checker.checkFunction(F, /*IsKernel=*/false);
  return Checker.take();
}

} // namespace baton::detail
