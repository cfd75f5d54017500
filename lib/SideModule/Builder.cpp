//===- Builder.cpp - Offline recompilation of a library -------------------===//
//
// The steps of Builder.h, container by container on a pool of threads:
// decode the PTX entry, parse it, exclude kernels that use module state,
// transform, print, assemble per architecture, pack. Each container's
// outcome is a list of kernel records; the index is their union, written
// last, and the whole directory is published by one rename.
//
//===----------------------------------------------------------------------===//
#include "baton/SideModule/Builder.h"

#include "ModuleState.h"
#include "Subprocess.h"

#include "baton/Fatbin/Cubin.h"
#include "baton/Fatbin/Decompress.h"
#include "baton/Fatbin/Scan.h"
#include "baton/PTX/Parser.h"
#include "baton/PTX/Printer.h"
#include "baton/SideModule/Arch.h"
#include "baton/SideModule/Cache.h"
#include "baton/SideModule/Registers.h"
#include "baton/Transform/Transform.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace baton;
using namespace baton::side;
namespace fs = std::filesystem;

namespace {

/// Kernel names of PTX that does not parse, read off its `.entry` lines,
/// so that they can still be reported one by one.
std::vector<std::string> entryNames(std::string_view Ptx) {
  std::vector<std::string> Names;
  for (size_t At = Ptx.find(".entry"); At != std::string_view::npos;
       At = Ptx.find(".entry", At + 6)) {
    size_t Begin = Ptx.find_first_not_of(" \t", At + 6);
    size_t End = Ptx.find_first_of(" \t(\n", Begin);
    if (Begin != std::string_view::npos && End != Begin)
      Names.emplace_back(Ptx.substr(Begin, End - Begin));
  }
  return Names;
}

std::string describe(const Refusal &R) {
  std::string S = R.Message + " (" + R.Construct + ", PTX line " +
                  std::to_string(R.Line);
  if (!R.Function.empty())
    S += " in " + R.Function;
  return S + ")";
}

/// The index record of one transformed kernel.
KernelRecord recordOf(const KernelResult &K,
                      const std::map<std::string, std::string> &ModuleState,
                      const std::string &Image) {
  KernelRecord Rec;
  Rec.Name = K.Name;
  if (!K.Selected) {
    Rec.Status = KernelStatus::Refused;
    Rec.Reason = ModuleStateReason;
    Rec.Detail = ModuleState.at(K.Name);
    return Rec;
  }
  const Refusal *First = K.Refusals.empty() ? nullptr : &K.Refusals.front();
  if (!K.SliceMade && !K.PtbMade) {
    Rec.Status = KernelStatus::Refused;
    Rec.Reason = First ? std::string(refusalKindName(First->Kind)) : "unknown";
    Rec.Detail = First ? describe(*First) : "no variant was made";
    return Rec;
  }
  Rec.Status = KernelStatus::Variants;
  Rec.Slice = K.SliceMade;
  Rec.Ptb = K.PtbMade;
  Rec.Image = Image;
  if (First && !(K.SliceMade && K.PtbMade)) {
    Rec.Reason = std::string(refusalKindName(First->Kind));
    Rec.Detail = describe(*First);
  }
  return Rec;
}

void refuseAll(std::vector<KernelRecord> &Records, const std::string &Reason,
               const std::string &Detail) {
  for (KernelRecord &R : Records) {
    R.Status = KernelStatus::Refused;
    R.Slice = R.Ptb = false;
    R.Image.clear();
    R.Reason = Reason;
    R.Detail = Detail;
  }
}

std::string firstLine(const std::string &S) {
  return S.substr(0, S.find('\n'));
}

bool writeText(const fs::path &Path, std::string_view Text) {
  std::ofstream Out(Path, std::ios::binary);
  Out.write(Text.data(), std::streamsize(Text.size()));
  Out.close();
  return bool(Out);
}

/// One container's part of the side module.
struct ContainerJob {
  unsigned Container = 0;
  const fatbin::Entry *Ptx = nullptr;
  std::vector<KernelRecord> Records;
  std::vector<std::string> Warnings;
};

class Build {
public:
  Build(const fs::path &Input, const BuildOptions &Options,
        std::vector<Arch> Archs, const fs::path &Staging)
      : Input(Input), Options(Options), Archs(std::move(Archs)),
        Staging(Staging) {}

  /// Fills \p Kernels and \p Warnings; an error if the input is unreadable.
  std::optional<std::string> run(std::vector<KernelRecord> &Kernels,
                                 std::vector<std::string> &Warnings);

private:
  void process(ContainerJob &Job);
  /// The variants' register budgets (RegisterBudget.h) for the first
  /// architecture asked for, from an assembly of the original \p Ptx; none,
  /// with a warning, if it cannot be assembled.
  RegisterBudgetFn registerBudgets(ContainerJob &Job, const Arch &Target,
                                   const std::string &Ptx,
                                   const std::string &Stem);
  /// Assembles \p PtxPath for every architecture and packs the fatbin;
  /// false (with warnings) if nothing could be assembled.
  bool assemble(ContainerJob &Job, const Arch &Target, const fs::path &PtxPath,
                const fs::path &FatbinPath);
  std::vector<KernelRecord> sassOnly(const std::vector<const fatbin::Entry *> &Cubins,
                                     std::vector<std::string> &Warnings);

  const fs::path &Input;
  const BuildOptions &Options;
  std::vector<Arch> Archs;
  fs::path Staging;
  std::vector<uint8_t> Bytes;
};

std::optional<std::string> Build::run(std::vector<KernelRecord> &Kernels,
                                      std::vector<std::string> &Warnings) {
  std::vector<fatbin::Entry> Entries;
  if (auto Err = fatbin::readFile(Input.string(), Bytes))
    return Err->str();
  if (auto Err = fatbin::scanFile(Bytes, Input.string(), Entries,
                                  fatbin::ScanOptions{Options.DataSections}))
    return Err->str();

  // Per container: the PTX entry to use, and the cubins if it has no PTX.
  unsigned Lowest = Archs.front().Number;
  for (const Arch &A : Archs)
    Lowest = std::min(Lowest, A.Number);
  std::map<unsigned, const fatbin::Entry *> Chosen;
  std::map<unsigned, std::vector<const fatbin::Entry *>> Cubins;
  for (const fatbin::Entry &E : Entries) {
    if (E.isELF())
      Cubins[E.Container].push_back(&E);
    if (!E.isPTX())
      continue;
    const fatbin::Entry *&Best = Chosen[E.Container];
    auto Rank = [&](const fatbin::Entry *X) {
      // Newest not above Lowest; failing that, the oldest.
      return X->Arch <= Lowest ? int(X->Arch) : -int(X->Arch);
    };
    if (!Best || Rank(&E) > Rank(Best))
      Best = &E;
  }

  std::vector<ContainerJob> Jobs;
  for (auto [Container, Entry] : Chosen)
    Jobs.push_back({Container, Entry, {}, {}});
  std::atomic<size_t> Next{0};
  std::mutex ProgressMutex;
  unsigned Done = 0;
  auto Worker = [&] {
    for (size_t I; (I = Next++) < Jobs.size();) {
      process(Jobs[I]);
      std::lock_guard Lock(ProgressMutex);
      ++Done;
      if (Options.Progress)
        Options.Progress(Done, unsigned(Jobs.size()));
    }
  };
  unsigned Threads = std::clamp<unsigned>(Options.Jobs, 1, 256);
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < Threads && T < Jobs.size(); ++T)
    Pool.emplace_back(Worker);
  Worker();
  for (std::thread &T : Pool)
    T.join();

  for (ContainerJob &Job : Jobs) {
    for (KernelRecord &R : Job.Records)
      Kernels.push_back(std::move(R));
    for (std::string &W : Job.Warnings)
      Warnings.push_back(std::move(W));
  }
  for (auto &[Container, List] : Cubins)
    if (!Chosen.count(Container))
      for (KernelRecord &R : sassOnly(List, Warnings))
        Kernels.push_back(std::move(R));
  return std::nullopt;
}

void Build::process(ContainerJob &Job) {
  std::string Where = Input.filename().string() + " container " +
                      std::to_string(Job.Container);
  std::vector<uint8_t> Decoded;
  if (auto Err = fatbin::decodePayload(Bytes, *Job.Ptx, Input.string(),
                                       Decoded)) {
    Job.Warnings.push_back(Err->str());
    return;
  }
  std::string Text(Decoded.begin(), Decoded.end());
  std::string Stem = "m" + std::to_string(Job.Container);
  auto Parsed = ptx::parseModule(Text, Where);
  if (Parsed.Error) {
    for (std::string &Name : entryNames(Text))
      Job.Records.push_back({std::move(Name), KernelStatus::Refused, false,
                             false, "", "ptx-parse-error",
                             Parsed.Error->str()});
    Job.Warnings.push_back(Parsed.Error->str());
    return;
  }
  ptx::Module &M = *Parsed.Mod;
  std::map<std::string, std::string> State = kernelsUsingModuleState(M);
  TransformOptions Opts;
  Opts.SelectKernel = [&](std::string_view K) {
    return !State.count(std::string(K));
  };
  std::optional<Arch> Target = moduleTarget(M);
  if (Target)
    Opts.RegisterBudget = registerBudgets(Job, *Target, Text, Stem);
  TransformResult R = transformModule(M, Opts);
  std::string Image = Stem + ".fatbin";
  for (const KernelResult &K : R.Kernels)
    Job.Records.push_back(recordOf(K, State, Image));
  bool AnyVariant = std::any_of(Job.Records.begin(), Job.Records.end(),
                                [](const KernelRecord &K) {
                                  return K.Status == KernelStatus::Variants;
                                });
  if (!AnyVariant)
    return; // nothing for the interposer to load

  if (!Target) {
    refuseAll(Job.Records, "ptx-parse-error", Where + ": no .target directive");
    return;
  }
  fs::path PtxPath = Staging / (Stem + ".ptx");
  if (!writeText(PtxPath, ptx::printModule(M))) {
    Job.Warnings.push_back(PtxPath.string() + ": cannot write");
    refuseAll(Job.Records, "ptxas-failed", "cannot write the transformed PTX");
    return;
  }
  if (!assemble(Job, *Target, PtxPath, Staging / Image)) {
    for (KernelRecord &K : Job.Records)
      if (K.Status == KernelStatus::Variants)
        K = {K.Name, KernelStatus::Refused, false, false, "", "ptxas-failed",
             Job.Warnings.empty() ? "" : Job.Warnings.back()};
  }
  std::error_code EC;
  fs::remove(PtxPath, EC);
}

RegisterBudgetFn Build::registerBudgets(ContainerJob &Job, const Arch &Target,
                                        const std::string &Ptx,
                                        const std::string &Stem) {
  std::optional<Arch> As = assemblyArch(Target, Archs.front());
  std::optional<SmLimits> Limits = As ? smLimits(As->Number) : std::nullopt;
  RegisterBudgetFn Budgets;
  if (!Limits)
    return Budgets;
  // A side module is loaded by itself, so it is assembled as a whole
  // program, as its original was.
  if (auto Err = fitRegisters(Ptx, *As, *Limits, /*Relocatable=*/false,
                              Options.CudaBin, Staging / (Stem + ".original"),
                              Budgets))
    Job.Warnings.push_back(Input.filename().string() + " container " +
                           std::to_string(Job.Container) +
                           ": variants keep their own register counts: " +
                           *Err);
  return Budgets;
}

bool Build::assemble(ContainerJob &Job, const Arch &Target,
                     const fs::path &PtxPath, const fs::path &FatbinPath) {
  std::string Where = Input.filename().string() + " container " +
                      std::to_string(Job.Container);
  std::vector<std::string> Fatbinary = {
      (Options.CudaBin / "fatbinary").string(), "--create=" + FatbinPath.string(),
      "-64"};
  std::vector<fs::path> Cubins;
  std::set<std::string> Assembled;
  for (const Arch &Wanted : Archs) {
    std::optional<Arch> As = assemblyArch(Target, Wanted);
    if (!As) {
      Job.Warnings.push_back(Where + ": no-ptx-for-arch: its PTX targets " +
                             Target.name() + ", which cannot run on " +
                             Wanted.name());
      continue;
    }
    if (!Assembled.insert(As->name()).second)
      continue;
    fs::path Cubin = PtxPath;
    Cubin.replace_extension(As->name() + ".cubin");
    ProcessResult P = runProcess({(Options.CudaBin / "ptxas").string(),
                                  "-arch=" + As->name(), PtxPath.string(),
                                  "-o", Cubin.string()});
    if (P.ExitCode != 0) {
      Job.Warnings.push_back(Where + ": ptxas -arch=" + As->name() +
                             " failed: " + firstLine(P.Output));
      return false;
    }
    Cubins.push_back(Cubin);
    Fatbinary.push_back("--image3=kind=elf,sm=" + std::to_string(As->Number) +
                        As->Suffix + ",file=" + Cubin.string());
  }
  if (Cubins.empty())
    return false;
  Fatbinary.push_back("--image3=kind=ptx,sm=" + std::to_string(Target.Number) +
                      Target.Suffix + ",file=" + PtxPath.string());
  ProcessResult P = runProcess(Fatbinary);
  std::error_code EC;
  for (const fs::path &C : Cubins)
    fs::remove(C, EC);
  if (P.ExitCode != 0) {
    Job.Warnings.push_back(Where + ": fatbinary failed: " + firstLine(P.Output));
    return false;
  }
  return true;
}

std::vector<KernelRecord>
Build::sassOnly(const std::vector<const fatbin::Entry *> &Cubins,
                std::vector<std::string> &Warnings) {
  std::map<std::string, std::set<std::string>> ArchsOf;
  std::vector<std::string> Order;
  for (const fatbin::Entry *E : Cubins) {
    std::vector<uint8_t> Cubin;
    std::vector<std::string> Names;
    std::optional<fatbin::Error> Err =
        fatbin::decodePayload(Bytes, *E, Input.string(), Cubin);
    if (!Err)
      Err = fatbin::cubinKernels(Cubin, Input.string(), 0, Names);
    if (Err)
      Warnings.push_back(Err->str());
    for (const std::string &N : Names) {
      auto [It, New] = ArchsOf.try_emplace(N);
      if (New)
        Order.push_back(N);
      It->second.insert("sm_" + std::to_string(E->Arch));
    }
  }
  std::vector<KernelRecord> Records;
  for (const std::string &N : Order) {
    std::string List;
    for (const std::string &A : ArchsOf[N])
      List += (List.empty() ? "" : ",") + A;
    Records.push_back({N, KernelStatus::SassOnly, false, false, "", "", List});
  }
  return Records;
}

/// A cached side module can be used if this Baton built it for the same
/// architectures.
bool upToDate(const Index &I, const std::vector<std::string> &Archs) {
  return I.BatonVersion == batonVersion() &&
         std::set(I.Archs.begin(), I.Archs.end()) ==
             std::set(Archs.begin(), Archs.end());
}

/// The index records, one per kernel name: a kernel that several containers
/// hold (a template instantiated in two files) keeps its first record with
/// variants, else its first record.
std::vector<KernelRecord> uniqueByName(std::vector<KernelRecord> Records) {
  std::map<std::string, size_t> Seen;
  std::vector<KernelRecord> Out;
  for (KernelRecord &R : Records) {
    auto [It, New] = Seen.try_emplace(R.Name, Out.size());
    if (New)
      Out.push_back(std::move(R));
    else if (R.Status == KernelStatus::Variants &&
             Out[It->second].Status != KernelStatus::Variants)
      Out[It->second] = std::move(R);
  }
  return Out;
}

} // namespace

fs::path baton::side::defaultCudaBin() {
  for (const char *Var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *Dir = std::getenv(Var); Dir && *Dir)
      return fs::path(Dir) / "bin";
  return "/usr/local/cuda/bin";
}

std::optional<std::string>
baton::side::buildSideModule(const fs::path &Input, const BuildOptions &Options,
                             BuildResult &Result) {
  std::vector<Arch> Archs;
  for (const std::string &A : Options.Archs) {
    std::optional<Arch> Parsed = parseArch(A);
    if (!Parsed || !A.starts_with("sm_"))
      return "unknown architecture '" + A + "' (expected sm_NN, sm_NNa or sm_NNf)";
    Archs.push_back(*Parsed);
  }
  if (Archs.empty())
    return std::string("no architecture to build for");

  std::string Error;
  std::optional<std::string> Hash = contentHash(Options.CacheRoot, Input, Error);
  if (!Hash)
    return Error;
  Result = BuildResult();
  Result.Dir = sideModuleDir(Options.CacheRoot, *Hash);
  if (!Options.Force)
    if (std::optional<Index> Cached = readIndex(Result.Dir, Error);
        Cached && upToDate(*Cached, Options.Archs)) {
      Result.CacheHit = true;
      Result.Kernels = std::move(*Cached);
      return std::nullopt;
    }

  fs::path Staging = Result.Dir;
  Staging += ".tmp." + std::to_string(::getpid());
  std::error_code EC;
  fs::remove_all(Staging, EC);
  fs::create_directories(Staging, EC);
  if (EC)
    return Staging.string() + ": cannot create: " + EC.message();
  auto Abandon = [&](std::string Why) {
    fs::remove_all(Staging, EC);
    return std::optional<std::string>(std::move(Why));
  };

  std::vector<KernelRecord> Kernels;
  if (auto Err = Build(Input, Options, Archs, Staging).run(Kernels,
                                                           Result.Warnings))
    return Abandon(*Err);

  Index &I = Result.Kernels;
  I.Input = fs::absolute(Input, EC).string();
  I.ContentHash = *Hash;
  I.InputSize = fs::file_size(Input, EC);
  I.BatonVersion = batonVersion();
  I.Archs = Options.Archs;
  I.Kernels = uniqueByName(std::move(Kernels));
  if (!writeText(Staging / IndexFileName, writeIndex(I)))
    return Abandon((Staging / IndexFileName).string() + ": cannot write");

  // Publish: replace an outdated side module; if another process published
  // one meanwhile, theirs is as good as ours.
  fs::remove_all(Result.Dir, EC);
  fs::rename(Staging, Result.Dir, EC);
  if (EC) {
    std::error_code Ignored;
    fs::remove_all(Staging, Ignored);
    if (!readIndex(Result.Dir, Error))
      return Result.Dir.string() + ": cannot publish the side module: " +
             EC.message();
  }
  return std::nullopt;
}
