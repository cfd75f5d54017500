//===- variant_check.cpp - Variants compute what the original computes ----===//
//
// For every kernel of the given launch manifests, in the modules baton-ptx
// produced: runs the original, then the slice variant at several slice
// sizes, the PTB variant uninterrupted with several worker counts, and the
// PTB variant under a storm of preemptions at random moments, resumed from
// the cursor each time, and under a storm that vacates a random number of
// SMs (the `preempt` watermark). Every buffer must equal the original's bit
// for bit.
// Kernels whose every block counts its own executions (test/gpu/kernels)
// make this the exactly-once test. The original runs twice first: a kernel
// whose result differs between them fails as "original twice", unchecked.
//
// usage: variant_check TRANSFORMED_ROOT MANIFEST...
// Exit status 0 all passed, 1 a failure, 77 no GPU (skipped).
//
//===----------------------------------------------------------------------===//
#include "GpuHarness.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <stdexcept>

using namespace baton::gpu;

namespace {

/// Empty if equal, else where the first difference is.
std::string compare(const std::vector<std::vector<uint8_t>> &Want,
                    const std::vector<std::vector<uint8_t>> &Got) {
  for (size_t B = 0; B < Want.size(); ++B) {
    if (Want[B] == Got[B])
      continue;
    size_t First = 0, Count = 0;
    for (size_t I = 0; I < Want[B].size(); ++I)
      if (Want[B][I] != Got[B][I]) {
        if (!Count)
          First = I;
        ++Count;
      }
    return "buffer " + std::to_string(B) + " differs in " +
           std::to_string(Count) + " bytes, first at byte " +
           std::to_string(First);
  }
  return "";
}

struct Tally {
  unsigned Passed = 0, Failed = 0;
  void expect(const std::string &Name, const std::string &Failure) {
    if (Failure.empty()) {
      ++Passed;
      return;
    }
    ++Failed;
    std::printf("FAIL  %s: %s\n", Name.c_str(), Failure.c_str());
  }
};

/// \p FinishedVacated counts launches that finished although SMs were
/// vacated during them (their other workers went on).
void checkKernel(Gpu &G, const std::string &Root, const LaunchSpec &S,
                 std::mt19937 &Rng, Tally &T, unsigned &FinishedVacated) {
  KernelRun R(G, (std::filesystem::path(Root) / S.Module).string(), S);
  std::string Name = S.Module + " " + S.Kernel;
  const unsigned FailedBefore = T.Failed;
  // Twice: a second run tells a kernel whose result varies by itself (a
  // race, uninitialised memory) from a variant that is wrong. A fault here
  // is the original's, and says so.
  auto RunOriginal = [&] {
    try {
      R.reset();
      R.launchOriginal(G.work());
      G.waitFor(G.work(), Name);
      return R.snapshot();
    } catch (const std::exception &E) {
      throw std::runtime_error(std::string("original: ") + E.what());
    }
  };
  auto Want = RunOriginal();
  const uint32_t Blocks = S.blocks();
  if (std::string Diff = compare(Want, RunOriginal()); !Diff.empty()) {
    T.expect(Name + " original twice", "the original itself is not "
                                       "deterministic here: " + Diff);
    return;
  }

  unsigned Checks = 0, Pauses = 0;
  if (R.hasSlice()) {
    std::vector<uint32_t> Sizes = {7, Blocks / 3 + 1, Blocks};
    if (Blocks <= 600)
      Sizes.push_back(1);
    for (uint32_t Size : Sizes) {
      R.reset();
      R.runSlices(Size);
      T.expect(Name + " slice x" + std::to_string(Size),
               compare(Want, R.snapshot()));
      ++Checks;
    }
  }
  if (R.hasPtb()) {
    uint32_t Max = R.maxPtbWorkers();
    // Late and early claims, of one block, of up to 7 and of up to 64,
    // three of them with the host's first shares (task.h), one of those
    // with shares of up to 64 blocks beyond its claims of one where they
    // cover the grid (baton_first_share_limit).
    struct PtbMode {
      uint32_t Flags, Chunk;
      bool FirstShares;
      uint32_t Covering;
    };
    const PtbMode Modes[] = {
        {0u, 1u, false, 0u},
        {BATON_TASK_PREFETCH, 1u, true, 0u},
        {0u, 7u, true, 0u},
        {BATON_TASK_PREFETCH, BATON_MAX_CLAIM_CHUNK, false, 0u},
        {0u, 1u, true, BATON_MAX_CLAIM_CHUNK}};
    for (auto [Flags, Chunk, FirstShares, Covering] : Modes) {
      std::string Mode = std::string(Flags ? " prefetch" : "") +
                         (Chunk > 1 ? " chunk" + std::to_string(Chunk) : "") +
                         (FirstShares ? " shares" : "") +
                         (Covering ? " covering" : "");
      for (uint32_t Workers : {Max, std::max(1u, Max / 7), 1u}) {
        R.reset();
        R.runPtb(Workers, {}, Flags, Chunk, {}, FirstShares, Covering);
        T.expect(Name + " ptb" + Mode + " " + std::to_string(Workers) +
                     " workers",
                 compare(Want, R.snapshot()));
        ++Checks;
      }
      // Preemption storm: pause most launches after a random delay, with a
      // random worker count, and resume from the cursor until done. The
      // last round vacates a random number of SMs instead (all of them
      // now and then), so that some workers stop while the others go on.
      std::uniform_int_distribution<uint32_t> Sms(1, uint32_t(G.smCount()));
      for (int Round = 0; Round < 4; ++Round) {
        std::uniform_int_distribution<uint32_t> W(1, Max);
        std::uniform_real_distribution<double> Delay(0, Round == 0 ? 5 : 200);
        uint32_t Workers = W(Rng);
        R.reset();
        auto Outcome = R.runPtb(
            Workers,
            [&](unsigned Launch) { return Launch < 200 ? Delay(Rng) : -1.0; },
            Flags, Chunk,
            [&](unsigned) {
              return Round == 3 ? Sms(Rng) : BATON_PREEMPT_ALL;
            },
            FirstShares, Covering);
        Pauses += Outcome.Pauses;
        FinishedVacated += Outcome.FinishedVacated;
        T.expect(Name + " ptb" + Mode + " preempted x" +
                     std::to_string(Outcome.Pauses),
                 compare(Want, R.snapshot()));
        ++Checks;
      }
    }
  }
  std::printf("%-5s %-34s %-36s blocks %6u  slice %-3s ptb %-3s  checks %u  "
              "pauses %u\n",
              T.Failed == FailedBefore ? "ok" : "FAIL", S.Module.c_str(), S.Kernel.c_str(), Blocks,
              R.hasSlice() ? "yes" : "no", R.hasPtb() ? "yes" : "no", Checks,
              Pauses);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::cerr << "usage: variant_check TRANSFORMED_ROOT MANIFEST...\n";
    return 2;
  }
  std::string Why;
  if (!driver().load(Why)) {
    std::printf("SKIPPED: no CUDA device (%s)\n", Why.c_str());
    return 77;
  }
  Tally T;
  try {
    Gpu G;
    std::printf("device: %s, %d SMs\n", G.name().c_str(), G.smCount());
    std::mt19937 Rng(20261122);
    unsigned FinishedVacated = 0;
    for (int I = 2; I < argc; ++I)
      for (const LaunchSpec &S : readManifest(argv[I])) {
        try {
          checkKernel(G, argv[1], S, Rng, T, FinishedVacated);
        } catch (const std::exception &E) {
          T.expect(S.Module + " " + S.Kernel, E.what());
          // A fault poisons the context: nothing after it can be trusted.
          if (std::string(E.what()).find("hung") != std::string::npos ||
              std::string(E.what()).find("ILLEGAL") != std::string::npos)
            break;
        }
      }
    // Variants that stopped every worker for any watermark would pass every
    // comparison above; some launches must have gone on without the
    // workers of the SMs vacated.
    std::printf("launches finished with SMs vacated: %u\n", FinishedVacated);
    T.expect("vacate storms",
             FinishedVacated > 0 ? "" : "no launch finished with SMs vacated");
  } catch (const std::exception &E) {
    T.expect("setup", E.what());
  }
  std::printf("%u passed, %u failed\n", T.Passed, T.Failed);
  return T.Failed ? 1 : 0;
}
