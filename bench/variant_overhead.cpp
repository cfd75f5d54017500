//===- variant_overhead.cpp - Cost of the variants when never preempted ---===//
//
// For every manifest kernel with variants: median kernel time (device events,
// after warm-up) of the original, of the slice variant as one launch over all
// blocks, and of the PTB variant with as many workers as fit on the GPU (at
// most one per block),
// claiming blocks late (default) and early (BATON_TASK_PREFETCH).
// Prints a table with the ratios and their geometric means.
//
// usage: variant_overhead TRANSFORMED_ROOT MANIFEST...
//
//===----------------------------------------------------------------------===//
#include "GpuHarness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

using namespace baton::gpu;

namespace {

constexpr int Reps = 21;

template <typename Fn> double medianMs(Gpu &G, Fn Launch) {
  CudaDriver &D = driver();
  CUevent A, B;
  check(D.cuEventCreate(&A, CU_EVENT_DEFAULT), "event");
  check(D.cuEventCreate(&B, CU_EVENT_DEFAULT), "event");
  std::vector<float> Times;
  for (int I = 0; I < Reps + 3; ++I) {
    Launch(/*Before=*/[&] { check(D.cuEventRecord(A, G.work()), "record"); });
    check(D.cuEventRecord(B, G.work()), "record");
    G.waitFor(G.work(), "timed launch");
    float Ms = 0;
    check(D.cuEventElapsedTime(&Ms, A, B), "elapsed");
    if (I >= 3)
      Times.push_back(Ms);
  }
  D.cuEventDestroy(A);
  D.cuEventDestroy(B);
  std::nth_element(Times.begin(), Times.begin() + Times.size() / 2, Times.end());
  return Times[Times.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: variant_overhead TRANSFORMED_ROOT MANIFEST...\n");
    return 2;
  }
  std::string Why;
  if (!driver().load(Why)) {
    std::printf("SKIPPED: no CUDA device (%s)\n", Why.c_str());
    return 77;
  }
  Gpu G;
  std::printf("device: %s, %d SMs; median of %d launches\n", G.name().c_str(),
              G.smCount(), Reps);
  std::printf("%-30s %-34s %9s %9s %9s %9s %7s %7s %7s\n", "module",
              "kernel", "orig us", "slice us", "ptb us", "ptb-pf us", "slice",
              "ptb", "ptb-pf");
  double LogSlice = 0, LogPtb = 0, LogPrefetch = 0;
  int N = 0;
  for (int I = 2; I < argc; ++I)
    for (const LaunchSpec &S : readManifest(argv[I])) {
      KernelRun R(G, (std::filesystem::path(argv[1]) / S.Module).string(), S);
      if (!R.hasSlice() || !R.hasPtb())
        continue;
      R.reset();
      double Orig = medianMs(G, [&](auto Before) {
        Before();
        R.launchOriginal(G.work());
      });
      // The task upload is synchronous, so the first event follows it.
      double Slice = medianMs(G, [&](auto Before) {
        R.writeTaskForSlices();
        Before();
        R.launchSliceKernel(G.work(), S.blocks());
      });
      // As a scheduler would: no more workers than blocks.
      uint32_t Workers = std::min(R.maxPtbWorkers(), S.blocks());
      auto TimePtb = [&](uint32_t Flags) {
        return medianMs(G, [&](auto Before) {
          R.writeTaskForPtb(Flags);
          Before();
          R.launchPtbKernel(G.work(), Workers);
        });
      };
      double Ptb = TimePtb(0), PtbPrefetch = TimePtb(BATON_TASK_PREFETCH);
      double RS = Slice / Orig, RP = Ptb / Orig, RF = PtbPrefetch / Orig;
      LogSlice += std::log(RS);
      LogPtb += std::log(RP);
      LogPrefetch += std::log(RF);
      ++N;
      std::printf("%-30s %-34s %9.1f %9.1f %9.1f %9.1f %7.3f %7.3f %7.3f\n",
                  S.Module.c_str(), S.Kernel.c_str(), Orig * 1e3, Slice * 1e3,
                  Ptb * 1e3, PtbPrefetch * 1e3, RS, RP, RF);
    }
  if (N)
    std::printf("geometric mean over %d kernels: slice %.3fx, ptb %.3fx, "
                "ptb with prefetch %.3fx\n",
                N, std::exp(LogSlice / N), std::exp(LogPtb / N),
                std::exp(LogPrefetch / N));
  return 0;
}
