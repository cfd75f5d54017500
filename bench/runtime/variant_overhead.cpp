//===- variant_overhead.cpp - Cost of the variants when never preempted ----===//
//
// Usage: variant_overhead MANIFEST XFORMED_DIR [REPS] [--claims]
//
// For each manifest kernel that has variants, times the original kernel, the
// slice variant (one wave per slice) and the PTB variant (all co-resident
// workers) as the user's stream sees them: CUDA events recorded on that
// stream around the launch, so the runtime's own work (task set-up, the
// finalize step, slice issue) is included. Prints the median of REPS runs
// (after warm-up) per mode, the ratios to the original, and their geometric
// means over all kernels.
//
// --claims adds, per PTB kernel, the ratio at claims of 1, 2, 4 and 8
// blocks, each with late claims (after the block) and early ones
// (LaunchConfig::Prefetch), and the registers of the original and the PTB
// variant: what a worker's claim costs against what the hardware's block
// dispatch costs. The row is timed in rounds of one launch of each
// configuration, the original included, while the columns are timed one
// mode after another: over a long sweep the GPU drifts (the row's `late1`
// is the PTB column's configuration).
//
//===----------------------------------------------------------------------===//

#include "LaunchArgs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string_view>

using namespace baton;
using namespace baton::test;
using baton::detail::driver;

namespace {

struct Events {
  Events() {
    check(driver().cuEventCreate(&Start, CU_EVENT_DEFAULT), "cuEventCreate");
    check(driver().cuEventCreate(&Stop, CU_EVENT_DEFAULT), "cuEventCreate");
  }
  ~Events() {
    driver().cuEventDestroy(Start);
    driver().cuEventDestroy(Stop);
  }
  CUevent Start = nullptr, Stop = nullptr;
};

/// Runs before the timed ones: module load, first touch of the buffers.
constexpr unsigned WarmUps = 3;

/// One launch of \p K as \p Config, timed on its stream (us).
double launchMicros(Runtime &Rt, const Kernel &K, const LaunchConfig &Config,
                    LaunchArgs &Args, Events &E) {
  check(driver().cuEventRecord(E.Start, Config.Stream), "cuEventRecord");
  Launch L = Rt.launch(K, Config, Args.pointers());
  check(driver().cuEventRecord(E.Stop, Config.Stream), "cuEventRecord");
  check(driver().cuEventSynchronize(E.Stop), "cuEventSynchronize");
  float Ms = 0;
  check(driver().cuEventElapsedTime(&Ms, E.Start, E.Stop),
        "cuEventElapsedTime");
  return double(Ms) * 1e3;
}

double median(std::vector<double> Micros) {
  std::nth_element(Micros.begin(), Micros.begin() + Micros.size() / 2,
                   Micros.end());
  return Micros[Micros.size() / 2];
}

/// Median device time (us) of each of \p Configs over \p Reps rounds of one
/// launch of each, after the warm-up rounds.
std::vector<double> medianMicros(Runtime &Rt, const Kernel &K,
                                 const std::vector<LaunchConfig> &Configs,
                                 LaunchArgs &Args, unsigned Reps) {
  Events E;
  std::vector<std::vector<double>> Micros(Configs.size());
  for (unsigned I = 0; I < Reps + WarmUps; ++I)
    for (size_t C = 0; C < Configs.size(); ++C) {
      double Us = launchMicros(Rt, K, Configs[C], Args, E);
      if (I >= WarmUps)
        Micros[C].push_back(Us);
    }
  std::vector<double> Medians;
  for (std::vector<double> &M : Micros)
    Medians.push_back(median(std::move(M)));
  return Medians;
}

double medianMicros(Runtime &Rt, const Kernel &K, const LaunchConfig &Config,
                    LaunchArgs &Args, unsigned Reps) {
  return medianMicros(Rt, K, std::vector<LaunchConfig>{Config}, Args, Reps)
      .front();
}

int registers(CUfunction F) {
  int N = 0;
  check(driver().cuFuncGetAttribute(&N, CU_FUNC_ATTRIBUTE_NUM_REGS, F),
        "cuFuncGetAttribute");
  return N;
}

/// The --claims table's row for one PTB kernel: late and early claims of
/// 1, 2, 4 and 8 blocks, as ratios to the original. Timed in rounds of one
/// launch of each, so that the GPU's drift over the sweep falls on every
/// configuration alike.
void printClaims(Runtime &Rt, const Kernel &K, LaunchConfig Config,
                 LaunchArgs &Args, unsigned Reps) {
  Config.LaunchMode = Mode::Original;
  std::vector<LaunchConfig> Configs{Config};
  Config.LaunchMode = Mode::Ptb;
  for (bool Early : {false, true})
    for (uint32_t Chunk : {1u, 2u, 4u, 8u}) {
      Config.Prefetch = Early;
      Config.ClaimChunk = Chunk;
      Configs.push_back(Config);
    }
  std::vector<double> Medians = medianMicros(Rt, K, Configs, Args, Reps);
  double Orig = Medians[0];
  std::printf("  claims: regs %d -> %d, %u workers, original %.1f us;",
              registers(K.function(Mode::Original)),
              registers(K.function(Mode::Ptb)), Rt.defaultWidth(K, Config),
              Orig);
  for (size_t C = 1; C < Configs.size(); ++C)
    std::printf(" %s%u %.3f", Configs[C].Prefetch ? "early" : "late",
                Configs[C].ClaimChunk, Medians[C] / Orig);
  std::printf("\n");
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::string> Positional;
  bool Claims = false;
  for (int I = 1; I < Argc; ++I) {
    if (std::string_view(Argv[I]) == "--claims")
      Claims = true;
    else
      Positional.emplace_back(Argv[I]);
  }
  if (Positional.size() < 2 || Positional.size() > 3) {
    std::fprintf(stderr, "usage: %s MANIFEST XFORMED_DIR [REPS] [--claims]\n",
                 Argv[0]);
    return 2;
  }
  unsigned Reps =
      Positional.size() == 3 ? unsigned(std::stoul(Positional[2])) : 15;
  try {
    auto Rt = runtimeOrSkip();
    if (!Rt)
      return SkipExitCode;
    Watchdog Dog("variant_overhead", std::chrono::seconds(300));
    std::fprintf(stderr, "variant_overhead on %s\n",
                 describeDevice(*Rt).c_str());
    std::printf("%-28s %-30s %10s %10s %7s %10s %7s\n", "module", "kernel",
                "orig us", "slice us", "ratio", "ptb us", "ratio");
    std::map<std::string, Module> Modules;
    double LogSlice = 0, LogPtb = 0;
    unsigned NSlice = 0, NPtb = 0;
    for (const ManifestLine &Line : readManifest(Positional[0])) {
      Dog.step(Line.Module + " " + Line.Kernel);
      auto It = Modules.find(Line.Module);
      if (It == Modules.end())
        It = Modules
                 .emplace(Line.Module,
                          Rt->loadFile(std::filesystem::path(Positional[1]) /
                                       Line.Module))
                 .first;
      Kernel K = It->second.kernel(Line.Kernel);
      if (!K.hasVariant(Mode::Slices) && !K.hasVariant(Mode::Ptb))
        continue;
      Stream S;
      LaunchArgs Args(Line, S.get());
      LaunchConfig Config;
      Config.Grid = dim3Of(Line.Grid);
      Config.Block = dim3Of(Line.Block);
      Config.SharedMemBytes = Line.SharedMemBytes;
      Config.Stream = S.get();
      Config.LaunchMode = Mode::Original;
      double Orig = medianMicros(*Rt, K, Config, Args, Reps);
      double Slice = NAN, Ptb = NAN;
      if (K.hasVariant(Mode::Slices)) {
        Config.LaunchMode = Mode::Slices;
        Slice = medianMicros(*Rt, K, Config, Args, Reps);
        LogSlice += std::log(Slice / Orig);
        ++NSlice;
      }
      if (K.hasVariant(Mode::Ptb)) {
        Config.LaunchMode = Mode::Ptb;
        Ptb = medianMicros(*Rt, K, Config, Args, Reps);
        LogPtb += std::log(Ptb / Orig);
        ++NPtb;
      }
      std::printf("%-28s %-30s %10.1f %10.1f %7.2f %10.1f %7.2f\n",
                  Line.Module.c_str(), Line.Kernel.c_str(), Orig, Slice,
                  Slice / Orig, Ptb, Ptb / Orig);
      if (Claims && K.hasVariant(Mode::Ptb))
        printClaims(*Rt, K, Config, Args, Reps);
      std::fflush(stdout);
    }
    std::printf("geometric mean ratio: slices %.3f over %u kernels, ptb %.3f "
                "over %u kernels\n",
                NSlice ? std::exp(LogSlice / NSlice) : NAN, NSlice,
                NPtb ? std::exp(LogPtb / NPtb) : NAN, NPtb);
  } catch (const std::exception &E) {
    std::printf("FAIL: variant_overhead: %s\n", E.what());
    return 1;
  }
  return 0;
}
