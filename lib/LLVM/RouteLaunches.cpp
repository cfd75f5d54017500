//===- RouteLaunches.cpp - Route host-side kernel launches to the shim ----===//
//
// clang lowers `k<<<g, b, s, st>>>(args)` to a call of the host stub of k,
// which calls cudaLaunchKernel(stub, g, b, args, s, st) (cudaLaunchKernel_ptsz
// with a per-thread default stream). This pass redirects every such call
// whose first argument is a function defined in this module (the stubs, and
// direct cudaLaunchKernel calls that name a kernel) to baton_cudaLaunchKernel
// (or _ptsz), which takes the same arguments: nothing else in the program
// changes. The shim calls cudaLaunchKernel itself unless scheduling is on,
// and runs a kernel whole when its module has no variants for it, so routing
// a kernel the device pass refused is harmless.
//
// Opting out, per kernel: `__attribute__((annotate("baton_skip")))` on the
// kernel, or -baton-route-skip=REGEX / -baton-route-only=REGEX (through
// -mllvm), matched against the kernel's device-side name as the module
// registers it (__cudaRegisterFunction), else against the stub's name.
//
// With -baton-lazy the pass also gives a module that registers kernels a
// constructor, baton.lazy_variants, that hands an address of this object to
// baton_cuda_lazy_variants: the shim then builds the variants of the
// object's kernels from the PTX of its fatbins at their first launch.
//
// Where it runs: at the start of the pipeline (so that -O0 builds are
// routed too), and again at its end. A direct launch written with
// cuda_runtime.h's C++ template (cudaLaunchKernel(kernel, ...)) calls the C
// function from inside the template, where the kernel is a parameter; it is
// routed by the second run, once the template has been inlined into its
// caller, so not at -O0. Calls already routed are not users of
// cudaLaunchKernel any more, so running twice changes nothing twice.
//
//===----------------------------------------------------------------------===//
#include "RouteLaunches.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Regex.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <optional>

#define DEBUG_TYPE "baton-route-launches"

using namespace llvm;

STATISTIC(NumLaunchesRouted, "Kernel launches routed to the Baton shim");
STATISTIC(NumLaunchesSkipped, "Kernel launches left alone by request");

static cl::opt<std::string>
    RouteOnly("baton-route-only", cl::init(""),
              cl::desc("Route launches only of kernels matching this regex"));
static cl::opt<std::string>
    RouteSkip("baton-route-skip", cl::init(""),
              cl::desc("Do not route launches of kernels matching this regex"));

namespace {

/// The launch entry points clang's stubs call, and their replacements.
constexpr std::pair<StringRef, StringRef> LaunchFunctions[] = {
    {"cudaLaunchKernel", "baton_cudaLaunchKernel"},
    {"cudaLaunchKernel_ptsz", "baton_cudaLaunchKernel_ptsz"},
};

/// Device-side names of the kernels this module registers, by host stub.
DenseMap<const Function *, StringRef> registeredNames(Module &M) {
  DenseMap<const Function *, StringRef> Names;
  Function *Register = M.getFunction("__cudaRegisterFunction");
  if (!Register)
    return Names;
  for (User *U : Register->users()) {
    auto *Call = dyn_cast<CallBase>(U);
    if (!Call || Call->getCalledOperand() != Register || Call->arg_size() < 3)
      continue;
    auto *Stub =
        dyn_cast<Function>(Call->getArgOperand(1)->stripPointerCasts());
    auto *Name = dyn_cast<GlobalVariable>(
        Call->getArgOperand(2)->stripPointerCasts());
    StringRef Text;
    if (Stub && Name && Name->hasInitializer())
      if (auto *Data = dyn_cast<ConstantDataSequential>(Name->getInitializer()))
        if (Data->isCString())
          Text = Data->getAsCString();
    if (Stub && !Text.empty())
      Names[Stub] = Text;
  }
  return Names;
}

/// Functions annotated "baton_skip" (llvm.global.annotations).
SmallPtrSet<const Function *, 8> skippedByAttribute(Module &M) {
  SmallPtrSet<const Function *, 8> Skipped;
  GlobalVariable *Annotations = M.getGlobalVariable("llvm.global.annotations");
  if (!Annotations || !Annotations->hasInitializer())
    return Skipped;
  auto *Entries = dyn_cast<ConstantArray>(Annotations->getInitializer());
  if (!Entries)
    return Skipped;
  for (const Use &Op : Entries->operands()) {
    auto *Entry = dyn_cast<ConstantStruct>(Op.get());
    if (!Entry || Entry->getNumOperands() < 2)
      continue;
    auto *F = dyn_cast<Function>(Entry->getOperand(0)->stripPointerCasts());
    auto *Str =
        dyn_cast<GlobalVariable>(Entry->getOperand(1)->stripPointerCasts());
    if (!F || !Str || !Str->hasInitializer())
      continue;
    if (auto *Data = dyn_cast<ConstantDataSequential>(Str->getInitializer()))
      if (Data->isCString() && Data->getAsCString() == "baton_skip")
        Skipped.insert(F);
  }
  return Skipped;
}

/// Adds the constructor that registers this object for variants made at
/// first launch (baton/cuda_launch.h), once: the pass runs twice. True if
/// it added it.
bool registerForLazyVariants(Module &M) {
  constexpr StringLiteral CtorName = "baton.lazy_variants";
  if (M.getFunction(CtorName))
    return false;
  LLVMContext &C = M.getContext();
  FunctionCallee Register =
      M.getOrInsertFunction("baton_cuda_lazy_variants", Type::getVoidTy(C),
                            PointerType::getUnqual(C));
  Function *Ctor =
      Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                       GlobalValue::InternalLinkage, CtorName, M);
  IRBuilder<> B(BasicBlock::Create(C, "", Ctor));
  B.CreateCall(Register, {Ctor}); // any address inside this object will do
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, /*Priority=*/65535);
  return true;
}

/// The regex of \p Option, or an error in \p M's context if it is invalid.
std::optional<Regex> patternOf(Module &M, const cl::opt<std::string> &Option) {
  if (Option.empty())
    return std::nullopt;
  Regex Pattern(Option.getValue());
  std::string Error;
  if (!Pattern.isValid(Error)) {
    M.getContext().emitError("-" + Option.ArgStr + "='" + Option.getValue() +
                             "' is not a valid regular expression: " + Error);
    return std::nullopt;
  }
  return Pattern;
}

} // namespace

namespace baton {

PreservedAnalyses RouteLaunchesPass::run(Module &M, ModuleAnalysisManager &) {
  const Triple &T = M.getTargetTriple();
  if (T.isNVPTX() || T.isAMDGPU())
    return PreservedAnalyses::all(); // device code: the variant passes' job

  DenseMap<const Function *, StringRef> Names = registeredNames(M);
  bool Changed = LazyVariants && !Names.empty() && registerForLazyVariants(M);
  SmallPtrSet<const Function *, 8> Skipped = skippedByAttribute(M);
  std::optional<Regex> Only = patternOf(M, RouteOnly);
  std::optional<Regex> Skip = patternOf(M, RouteSkip);
  auto Routed = [&](const Function &Stub) {
    if (Skipped.contains(&Stub))
      return false;
    StringRef Name = Names.lookup(&Stub);
    if (Name.empty())
      Name = Stub.getName();
    return (!Only || Only->match(Name)) && !(Skip && Skip->match(Name));
  };

  for (auto [From, To] : LaunchFunctions) {
    Function *Launch = M.getFunction(From);
    if (!Launch)
      continue;
    FunctionCallee Shim = M.getOrInsertFunction(To, Launch->getFunctionType(),
                                                Launch->getAttributes());
    for (User *U : make_early_inc_range(Launch->users())) {
      auto *Call = dyn_cast<CallBase>(U);
      if (!Call || Call->getCalledOperand() != Launch || Call->arg_size() == 0)
        continue;
      auto *Stub =
          dyn_cast<Function>(Call->getArgOperand(0)->stripPointerCasts());
      if (!Stub || Stub->isDeclaration())
        continue; // not a kernel of this module: left as it is
      if (!Routed(*Stub)) {
        LLVM_DEBUG(dbgs() << "baton: not routing " << Stub->getName() << "\n");
        ++NumLaunchesSkipped;
        continue;
      }
      LLVM_DEBUG(dbgs() << "baton: routing launch of " << Stub->getName()
                        << " in " << Call->getFunction()->getName() << "\n");
      Call->setCalledFunction(Shim);
      ++NumLaunchesRouted;
      Changed = true;
    }
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace baton
