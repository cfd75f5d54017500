//===- Plugin.cpp - Baton's passes for opt and clang ----------------------===//
//
// One pass plugin for the new pass manager:
//
//   baton-variants              the whole transform (slice + PTB variants)
//   baton-variants<slice-only>  only K__baton_slice
//   baton-variants<ptb-only>    only K__baton_ptb
//   print<baton-safety>         prints each kernel's decision, changes nothing
//
//   baton-route-launches        host side: kernel launches call the
//                               scheduler's shim (RouteLaunches.cpp)
//   baton-route-launches<lazy>  also registers the program's object for
//                               variants made at first launch
//
// With `clang -fpass-plugin=BatonPlugin.so` the transform runs by itself on
// device modules (target triple nvptx*), and baton-route-launches on host
// modules; each does nothing on the other kind.
//
// -baton-lazy (through -mllvm, so both sides see it) moves the variants out
// of the build: the device side only checks each kernel and warns about
// refusals, and the host side registers the object with the launch shim,
// which builds the variants from the PTX in the object's fatbins at the
// first launch of one of its kernels, once per content of the object (the
// side-module cache of offline recompilation). The build then costs what it
// costs without the plugin; compile with --cuda-include-ptx=<arch> so that
// the fatbins hold PTX. See docs/llvm-plugin.md, "Variants at first launch".
//
// Where it runs: at OptimizerLast, i.e. on the optimised module. Measured
// with clang-22 -O3 on test/corpus/src and a 128-kernel file (see
// docs/llvm-plugin.md): at PipelineStart the variants are optimised with the
// rest of the module, which costs one more full optimisation of every
// kernel's body (about twice the device compile time) and gives them no
// fewer registers; and the originals' code differs, because the inliner and
// function attribute inference then see a module with more callers. At
// OptimizerLast the originals are exactly what they are without the plugin,
// the variants' bodies are the optimised originals, and only the small
// prologue and worker loop are left to the code generator. -baton-at=start
// selects PipelineStart for comparison.
//
//===----------------------------------------------------------------------===//
#include "ModuleTransform.h"
#include "RouteLaunches.h"
#include "SafetyAnalysis.h"

#include "baton/Transform/Report.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

static cl::opt<std::string>
    ReportFile("baton-report", cl::value_desc("file.json"),
               cl::desc("Write the same JSON report as baton-ptx --report"));
static cl::opt<std::string> KernelRegex(
    "baton-kernels", cl::value_desc("regex"),
    cl::desc("Transform only the kernels whose names match (whole name)"));
static cl::opt<std::string>
    SkipRegex("baton-skip", cl::value_desc("regex"),
              cl::desc("Do not transform the kernels whose names match"));
enum class PipelinePoint { Start, Last };
static cl::opt<bool>
    Lazy("baton-lazy", cl::init(false),
         cl::desc("Add no variants at compile time: check kernels, and let "
                  "the launch shim build variants at first launch"));
static cl::opt<PipelinePoint> RunAt(
    "baton-at", cl::desc("Where clang's pipeline runs baton-variants"),
    cl::init(PipelinePoint::Last),
    cl::values(clEnumValN(PipelinePoint::Start, "start", "PipelineStart"),
               clEnumValN(PipelinePoint::Last, "last", "OptimizerLast")));

namespace {

/// Anchors a user pattern so that it must match the whole kernel name; an
/// invalid pattern is reported and matches nothing.
std::shared_ptr<Regex> compile(StringRef Pattern, LLVMContext &Ctx) {
  if (Pattern.empty())
    return nullptr;
  auto R = std::make_shared<Regex>(("^(" + Pattern + ")$").str());
  std::string Error;
  if (!R->isValid(Error)) {
    Ctx.diagnose(DiagnosticInfoGeneric(
        "baton: invalid kernel pattern '" + Pattern + "': " + Error,
        DS_Warning));
  }
  return R;
}

baton::TransformOptions optionsFor(Module &M, bool Slice, bool Ptb) {
  baton::TransformOptions Opts;
  Opts.MakeSlice = Slice;
  Opts.MakePtb = Ptb;
  auto Only = compile(KernelRegex, M.getContext());
  auto Skip = compile(SkipRegex, M.getContext());
  if (Only || Skip)
    Opts.SelectKernel = [Only, Skip](std::string_view Name) {
      std::string N(Name);
      if (Only && (!Only->isValid() || !Only->match(N)))
        return false;
      return !(Skip && Skip->isValid() && Skip->match(N));
    };
  return Opts;
}

void writeReport(Module &M, const baton::TransformResult &R) {
  if (ReportFile.empty())
    return;
  std::error_code EC;
  raw_fd_ostream OS(ReportFile, EC, sys::fs::OF_Text);
  if (EC) {
    M.getContext().diagnose(DiagnosticInfoGeneric(
        "baton: cannot write report '" + ReportFile + "': " + EC.message(),
        DS_Warning));
    return;
  }
  OS << baton::reportToJson(R, M.getSourceFileName());
}

struct BatonVariantsPass : PassInfoMixin<BatonVariantsPass> {
  bool Slice = true, Ptb = true;
  baton::ir::TransformMode Mode = baton::ir::TransformMode::Build;

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    baton::TransformResult R =
        baton::ir::transformModule(M, optionsFor(M, Slice, Ptb), Mode);
    writeReport(M, R);
    // Check mode makes nothing, and reports nothing made.
    bool Changed = any_of(R.Kernels, [](const baton::KernelResult &K) {
      return K.SliceMade || K.PtbMade;
    });
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

/// What clang's pipeline runs: the transform on NVPTX modules only.
struct BatonDevicePass : PassInfoMixin<BatonDevicePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    if (!Triple(M.getTargetTriple()).isNVPTX())
      return PreservedAnalyses::all();
    BatonVariantsPass P;
    if (Lazy) {
      // The variants are built from the PTX at run time, for every kernel
      // of the object: a selection made here would be silently lost.
      if (!KernelRegex.empty() || !SkipRegex.empty())
        M.getContext().diagnose(DiagnosticInfoGeneric(
            "baton: -baton-kernels and -baton-skip do not apply with "
            "-baton-lazy; leave kernels out with -baton-route-skip, "
            "-baton-route-only or __attribute__((annotate(\"baton_skip\")))",
            DS_Error));
      P.Mode = baton::ir::TransformMode::Check;
    }
    return P.run(M, MAM);
  }
  static bool isRequired() { return true; }
};

/// print<baton-safety>: per kernel, the variants it would get and why not.
struct BatonSafetyPrinterPass : PassInfoMixin<BatonSafetyPrinterPass> {
  raw_ostream &OS;
  explicit BatonSafetyPrinterPass(raw_ostream &OS) : OS(OS) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    baton::TransformResult R = baton::ir::transformModule(
        M, optionsFor(M, true, true), baton::ir::TransformMode::Plan);
    OS << "Baton safety for module '" << M.getModuleIdentifier() << "':\n";
    for (const baton::KernelResult &K : R.Kernels) {
      OS << "kernel '" << K.Name << "': ";
      if (!K.Selected) {
        OS << "not selected\n";
        continue;
      }
      OS << "slice " << (K.SliceMade ? "yes" : "no") << ", ptb "
         << (K.PtbMade ? "yes" : "no") << "\n";
      for (const baton::Refusal &F : K.Refusals)
        OS << "  [" << baton::refusalKindName(F.Kind) << "] in '"
           << F.Function << "': " << F.Message << "\n";
    }
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

bool parseModulePass(StringRef Name, ModulePassManager &MPM,
                     ArrayRef<PassBuilder::PipelineElement>) {
  if (Name == "baton-route-launches" || Name == "baton-route-launches<lazy>") {
    MPM.addPass(baton::RouteLaunchesPass(Name.ends_with("<lazy>")));
    return true;
  }
  if (Name == "print<baton-safety>") {
    MPM.addPass(BatonSafetyPrinterPass(errs()));
    return true;
  }
  if (!Name.consume_front("baton-variants"))
    return false;
  BatonVariantsPass P;
  if (Name == "<slice-only>")
    P.Ptb = false;
  else if (Name == "<ptb-only>")
    P.Slice = false;
  else if (!Name.empty())
    return false;
  MPM.addPass(std::move(P));
  return true;
}

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(parseModulePass);
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        // Before inlining can fold the launch stubs into their callers.
        MPM.addPass(baton::RouteLaunchesPass(Lazy));
        if (RunAt == PipelinePoint::Start)
          MPM.addPass(BatonDevicePass());
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
        // Again after inlining: launches through cuda_runtime.h's C++
        // template name the kernel only once the template is inlined.
        MPM.addPass(baton::RouteLaunchesPass(Lazy));
        if (RunAt == PipelinePoint::Last)
          MPM.addPass(BatonDevicePass());
      });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Baton", "0.1", registerCallbacks};
}
