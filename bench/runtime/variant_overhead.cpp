//===- variant_overhead.cpp - Cost of the variants when never preempted ----===//
//
// Usage: variant_overhead MANIFEST XFORMED_DIR [REPS]
//
// For each manifest kernel that has variants, times the original kernel, the
// slice variant (one wave per slice) and the PTB variant (all co-resident
// workers) as the user's stream sees them: CUDA events recorded on that
// stream around the launch, so the runtime's own work (task set-up, the
// finalize step, slice issue) is included. Prints the median of REPS runs
// (after warm-up) per mode, the ratios to the original, and their geometric
// means over all kernels.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>

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

double medianMicros(Runtime &Rt, const Kernel &K, LaunchConfig Config,
                    LaunchArgs &Args, unsigned Reps) {
  Events E;
  std::vector<double> Micros;
  for (unsigned I = 0; I < Reps + 3; ++I) {
    check(driver().cuEventRecord(E.Start, Config.Stream), "cuEventRecord");
    Launch L = Rt.launch(K, Config, Args.pointers());
    check(driver().cuEventRecord(E.Stop, Config.Stream), "cuEventRecord");
    check(driver().cuEventSynchronize(E.Stop), "cuEventSynchronize");
    float Ms = 0;
    check(driver().cuEventElapsedTime(&Ms, E.Start, E.Stop),
          "cuEventElapsedTime");
    if (I >= 3) // warm-up: module load, first touch of the buffers
      Micros.push_back(double(Ms) * 1e3);
  }
  std::nth_element(Micros.begin(), Micros.begin() + Micros.size() / 2,
                   Micros.end());
  return Micros[Micros.size() / 2];
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 3 || Argc > 4) {
    std::fprintf(stderr, "usage: %s MANIFEST XFORMED_DIR [REPS]\n", Argv[0]);
    return 2;
  }
  unsigned Reps = Argc == 4 ? unsigned(std::stoul(Argv[3])) : 15;
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
    for (const ManifestLine &Line : readManifest(Argv[1])) {
      Dog.step(Line.Module + " " + Line.Kernel);
      auto It = Modules.find(Line.Module);
      if (It == Modules.end())
        It = Modules
                 .emplace(Line.Module,
                          Rt->loadFile(std::filesystem::path(Argv[2]) /
                                       Line.Module))
                 .first;
      Kernel K = It->second.kernel(Line.Kernel);
      if (!K.hasVariant(Mode::Slices) && !K.hasVariant(Mode::Ptb))
        continue;
      Stream S;
      LaunchArgs Args(Line, S.get());
      LaunchConfig Config;
      Config.Grid = Line.Grid;
      Config.Block = Line.Block;
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
