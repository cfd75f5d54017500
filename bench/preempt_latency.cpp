//===- preempt_latency.cpp - From the preempt request to the last worker ---===//
//
// A PTB launch of count_blocks (test/variants-gpu/kernels/blocks.cu) whose
// each spin for a set time fills the GPU with workers. After it has run for a
// while the host raises the preempt flag from a high-priority stream and
// polls until the launch has ended; the latency is that interval. The floor
// is the block duration (measured, from the original kernel's waves): a
// worker finishes the block it has taken. Two ways
// of writing the flag are compared: cuStreamWriteValue32 (front end, no SM
// needed) and cuMemcpyHtoDAsync from pinned memory (a copy engine).
//
// usage: preempt_latency TRANSFORMED_BLOCKS_PTX [PAUSES]
//
//===----------------------------------------------------------------------===//
#include "GpuHarness.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>

using namespace baton::gpu;

namespace {

enum class Signal { StreamWrite, PinnedCopy };

double percentile(std::vector<double> V, double P) {
  std::sort(V.begin(), V.end());
  return V[std::min(V.size() - 1, static_cast<size_t>(P * V.size()))];
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: preempt_latency BLOCKS_PTX [PAUSES]\n");
    return 2;
  }
  std::string Why;
  if (!driver().load(Why)) {
    std::printf("SKIPPED: no CUDA device (%s)\n", Why.c_str());
    return 77;
  }
  const int Pauses = argc > 2 ? std::atoi(argv[2]) : 200;
  Gpu G;
  CudaDriver &D = driver();
  uint32_t *One = nullptr;
  check(D.cuMemHostAlloc(reinterpret_cast<void **>(&One), sizeof(uint32_t), 0),
        "pinned flag");
  *One = BATON_PREEMPT_ALL;
  std::printf("device: %s, %d SMs; %d pauses per row\n", G.name().c_str(),
              G.smCount(), Pauses);
  std::printf("%-6s %7s %-22s %8s %9s %9s %9s %9s %9s\n", "spin", "block",
              "signal", "workers", "p50 (us)", "p99 (us)", "max (us)",
              "p99-block", "flag p50");
  for (unsigned BlockUs : {5u, 50u, 200u, 1000u}) {
    // Enough blocks that no launch finishes before it is preempted.
    LaunchSpec S = spinKernelSpec(argv[1], "count_blocks", 0xFFFFF, "u32",
                                  0xFFFFF, BlockUs * 1000, "preempt_latency");
    KernelRun R(G, argv[1], S);
    uint32_t Workers = R.maxPtbWorkers();
    // The real block duration (the floor): one original launch of Workers x
    // 20 blocks takes 20 block durations when they all fit at once.
    double MeasuredBlockUs = 0;
    {
      LaunchSpec Waves = S;
      Waves.Grid.x = Workers * 20;
      KernelRun O(G, argv[1], Waves);
      O.reset();
      O.launchOriginal(G.work()); // warm-up
      G.waitFor(G.work(), "warm-up");
      auto A = std::chrono::steady_clock::now();
      O.launchOriginal(G.work());
      G.waitFor(G.work(), "block duration");
      MeasuredBlockUs = std::chrono::duration<double, std::micro>(
                            std::chrono::steady_clock::now() - A)
                            .count() /
                        20;
    }
    // The same 20 waves of blocks as one uninterrupted PTB launch: the block
    // duration inside the worker loop.
    double PtbBlockUs = 0;
    {
      LaunchSpec Waves = S;
      Waves.Grid.x = Workers * 20;
      KernelRun P(G, argv[1], Waves);
      P.reset();
      P.writeTaskForPtb();
      auto A = std::chrono::steady_clock::now();
      P.launchPtbKernel(G.work(), Workers);
      G.waitFor(G.work(), "ptb block duration");
      PtbBlockUs = std::chrono::duration<double, std::micro>(
                       std::chrono::steady_clock::now() - A)
                       .count() /
                   20;
    }
    std::printf("spin %u us: original block %.1f us, PTB block %.1f us\n",
                BlockUs, MeasuredBlockUs, PtbBlockUs);
    for (auto [How, Flags] : {std::pair{Signal::StreamWrite, 0u},
                              std::pair{Signal::PinnedCopy, 0u},
                              std::pair{Signal::StreamWrite,
                                        BATON_TASK_PREFETCH}}) {
      std::vector<double> Lat, FlagSeen;
      for (int I = 0; I < Pauses; ++I) {
        R.writeTaskForPtb(Flags);
        R.launchPtbKernel(G.work(), Workers);
        // Let the workers settle into their blocks at a random phase.
        spinMicros(300 + (I * 37) % (2 * BlockUs + 1));
        auto T0 = std::chrono::steady_clock::now();
        CUdeviceptr Flag = R.taskPointer() + offsetof(baton_task, preempt);
        if (How == Signal::StreamWrite)
          check(D.cuStreamWriteValue32(G.control(), Flag, BATON_PREEMPT_ALL,
                                       CU_STREAM_WRITE_VALUE_DEFAULT),
                "stream write");
        else
          check(D.cuMemcpyHtoDAsync(Flag, One, sizeof *One, G.control()),
                "pinned copy");
        // When the flag write is done (as the host sees it), then when the
        // last worker has left.
        auto TW = T0;
        bool Written = false;
        while (D.cuStreamQuery(G.work()) == CUDA_ERROR_NOT_READY)
          if (!Written && D.cuStreamQuery(G.control()) == CUDA_SUCCESS) {
            TW = std::chrono::steady_clock::now();
            Written = true;
          }
        auto T1 = std::chrono::steady_clock::now();
        if (!Written)
          TW = T1;
        G.waitFor(G.work(), "preempted launch");
        G.waitFor(G.control(), "flag write");
        baton_task T = R.readTask();
        if (T.next >= T.end)
          throw std::runtime_error("launch finished before it was preempted");
        Lat.push_back(std::chrono::duration<double, std::micro>(T1 - T0).count());
        FlagSeen.push_back(std::chrono::duration<double, std::micro>(TW - T0).count());
      }
      std::printf("%-6u %7.1f %-22s %8u %9.1f %9.1f %9.1f %9.1f %9.1f\n",
                  BlockUs, MeasuredBlockUs,
                  How == Signal::PinnedCopy ? "pinned-copy"
                  : Flags                   ? "stream-write+prefetch"
                                            : "stream-write",
                  Workers, percentile(Lat, 0.5), percentile(Lat, 0.99),
                  percentile(Lat, 1.0), percentile(Lat, 0.99) - MeasuredBlockUs,
                  percentile(FlagSeen, 0.5));
    }
  }
  D.cuMemFreeHost(One);
  return 0;
}
