//===- variant_overhead.cpp - Cost of the variants when never preempted ---===//
//
// For every manifest kernel with variants: median kernel time (device events,
// after warm-up) of the original, of the slice variant as one launch over all
// blocks, and of the PTB variant with as many workers as fit on the GPU (at
// most one per block), claiming blocks late (default) or early
// (BATON_TASK_PREFETCH), one at a time or up to 8 or 32 at a time
// (claim_chunk), and at the claim chunk the scheduler would choose (`sched`,
// late claims, the chunk in column `chunk`): SchedulerPolicy's
// chooseClaimChunk at the default options and an H100's DeviceFacts, from
// the original's block time as the runtime measures one: the kernel's time
// over its rounds of as many blocks as fit on the GPU at once; with the
// first shares in the task, as the runtime launches it, and without them
// (`nofirst`: every worker makes its own first claim). Each of those times
// one launch between two events; `s-runs` times the slice variant as a
// training loop meets it, in runs of back-to-back launches alternated with
// runs of the original (pairedRunRatio), and `p-runs` the same for `sched`,
// each launch of a run with a fresh task of its own. Prints a table with the
// ratios and their geometric means.
//
// usage: variant_overhead TRANSFORMED_ROOT MANIFEST...
//
//===----------------------------------------------------------------------===//
#include "GpuHarness.h"
#include "SchedulerPolicy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>

using namespace baton::gpu;

namespace {

constexpr int Reps = 21, PairedRuns = 31;

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

/// A word in mapped host memory that a stream waits for: a timed run's
/// launches are all queued behind it before the GPU starts the first, so
/// that the run times the GPU and not the host's rate of launching.
class HeldStart {
public:
  HeldStart() {
    CudaDriver &D = driver();
    void *Host = nullptr;
    check(D.cuMemHostAlloc(&Host, sizeof(uint32_t), CU_MEMHOSTALLOC_DEVICEMAP),
          "held start");
    Word = static_cast<volatile uint32_t *>(Host);
    *Word = 0;
    check(D.cuMemHostGetDevicePointer(&Device, Host, 0), "held start");
  }
  ~HeldStart() { driver().cuMemFreeHost(const_cast<uint32_t *>(Word)); }
  HeldStart(const HeldStart &) = delete;
  HeldStart &operator=(const HeldStart &) = delete;

  void hold(CUstream S) {
    check(driver().cuStreamWaitValue32(S, Device, ++Value,
                                       CU_STREAM_WAIT_VALUE_GEQ),
          "held start");
  }
  void release() { *Word = Value; }

private:
  volatile uint32_t *Word = nullptr;
  CUdeviceptr Device = 0;
  uint32_t Value = 0;
};

/// B's time over A's where every launch counts: each timed as a run of
/// Batch back-to-back launches between two events (a run of a few hundred
/// microseconds, far above the events' resolution), queued whole before the
/// GPU starts it. The two runs alternate, in turn A first and B first, so
/// that drift in clocks and the place in a pair fall on both; the median
/// of the pairs' ratios. A(L) and B(L) enqueue a run's L-th launch;
/// PrepareB() runs, untimed, before each run of B.
template <typename FnA, typename PrepareFn, typename FnB>
double pairedRunRatio(Gpu &G, FnA A, PrepareFn PrepareB, FnB B,
                      unsigned Batch) {
  constexpr int WarmUp = 2;
  CudaDriver &D = driver();
  CUevent Start, Stop;
  check(D.cuEventCreate(&Start, CU_EVENT_DEFAULT), "event");
  check(D.cuEventCreate(&Stop, CU_EVENT_DEFAULT), "event");
  HeldStart Held;
  auto Run = [&](auto Launch) {
    Held.hold(G.work());
    check(D.cuEventRecord(Start, G.work()), "record");
    for (unsigned L = 0; L < Batch; ++L)
      Launch(L);
    check(D.cuEventRecord(Stop, G.work()), "record");
    Held.release();
    G.waitFor(G.work(), "timed run");
    float Ms = 0;
    check(D.cuEventElapsedTime(&Ms, Start, Stop), "elapsed");
    return static_cast<double>(Ms);
  };
  auto RunB = [&] {
    PrepareB();
    return Run(B);
  };
  std::vector<double> Ratios;
  for (int P = 0; P < PairedRuns + WarmUp; ++P) {
    double TimeA, TimeB;
    if (P % 2) {
      TimeB = RunB();
      TimeA = Run(A);
    } else {
      TimeA = Run(A);
      TimeB = RunB();
    }
    if (P >= WarmUp)
      Ratios.push_back(TimeB / TimeA);
  }
  D.cuEventDestroy(Start);
  D.cuEventDestroy(Stop);
  std::nth_element(Ratios.begin(), Ratios.begin() + Ratios.size() / 2,
                   Ratios.end());
  return Ratios[Ratios.size() / 2];
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
  struct PtbMode {
    const char *Name;
    uint32_t Flags, Chunk;
  };
  const PtbMode Modes[] = {{"ptb", 0, 1},       {"pf", BATON_TASK_PREFETCH, 1},
                           {"c8", 0, 8},        {"pf-c8", BATON_TASK_PREFETCH, 8},
                           {"c32", 0, 32},      {"pf-c32", BATON_TASK_PREFETCH, 32}};
  constexpr size_t NumModes = std::size(Modes);
  std::printf("device: %s, %d SMs; median of %d launches (s-runs, p-runs: "
              "of %d paired runs); ratios to the original\n",
              G.name().c_str(), G.smCount(), Reps, PairedRuns);
  std::printf("%-30s %-34s %8s %9s %7s %7s", "module", "kernel", "blocks",
              "orig us", "slice", "s-runs");
  for (const PtbMode &M : Modes)
    std::printf(" %7s", M.Name);
  std::printf(" %5s %7s %7s %7s\n", "chunk", "sched", "nofirst", "p-runs");
  const baton::sched::SchedulerOptions Defaults;
  double LogSlice = 0, LogSliceRuns = 0, LogPtb[NumModes] = {}, LogSched = 0,
         LogNoFirst = 0, LogPtbRuns = 0;
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
      // A slice launch reads its task and never writes it, so the task
      // written above serves a run of launches: runs of about 200 us, each
      // slice run paired with an original run.
      unsigned Batch = static_cast<unsigned>(
          std::clamp(std::ceil(0.2 / Orig), 1.0, 200.0));
      auto Original = [&](unsigned) { R.launchOriginal(G.work()); };
      double SliceRuns = pairedRunRatio(
          G, Original, [] {},
          [&](unsigned) { R.launchSliceKernel(G.work(), S.blocks()); }, Batch);
      // As a scheduler would: no more workers than blocks.
      uint32_t Workers = std::min(R.maxPtbWorkers(), S.blocks());
      LogSlice += std::log(Slice / Orig);
      LogSliceRuns += std::log(SliceRuns);
      std::printf("%-30s %-34s %8u %9.1f %7.3f %7.3f", S.Module.c_str(),
                  S.Kernel.c_str(), S.blocks(), Orig * 1e3, Slice / Orig,
                  SliceRuns);
      for (size_t M = 0; M < NumModes; ++M) {
        double Ptb = medianMs(G, [&](auto Before) {
          R.writeTaskForPtb(Modes[M].Flags, Modes[M].Chunk);
          Before();
          R.launchPtbKernel(G.work(), Workers);
        });
        LogPtb[M] += std::log(Ptb / Orig);
        std::printf(" %7.3f", Ptb / Orig);
      }
      uint64_t Resident = R.maxOriginalBlocks();
      uint64_t Rounds = (S.blocks() + Resident - 1) / Resident;
      auto Block = std::chrono::nanoseconds(
          static_cast<int64_t>(Orig * 1e6 / static_cast<double>(Rounds)));
      uint32_t Chunk = baton::sched::chooseClaimChunk(
          baton::sched::DeviceFacts{}, Block, Defaults.ClaimInterval,
          Defaults.PreemptionBound);
      // As the runtime launches it: the first shares in the task.
      double Sched = medianMs(G, [&](auto Before) {
        R.writeTaskForPtb(0, Chunk, Workers);
        Before();
        R.launchPtbKernel(G.work(), Workers);
      });
      double NoFirst = medianMs(G, [&](auto Before) {
        R.writeTaskForPtb(0, Chunk);
        Before();
        R.launchPtbKernel(G.work(), Workers);
      });
      // `sched` in runs: each launch of a run has a fresh task of its own,
      // written before the run (as the runtime's task pool has a slot
      // fresh before its launch), so that only the launches are timed.
      constexpr size_t Stride =
          (sizeof(baton_task) + BATON_TASK_ALIGN - 1) / BATON_TASK_ALIGN *
          BATON_TASK_ALIGN;
      CudaDriver &D = driver();
      CUdeviceptr Tasks = 0;
      check(D.cuMemAlloc(&Tasks, Batch * Stride), "run tasks");
      std::vector<uint8_t> Fresh(Batch * Stride);
      const baton_task T = R.ptbTask(0, Chunk, Workers);
      for (unsigned L = 0; L < Batch; ++L)
        std::memcpy(Fresh.data() + L * Stride, &T, sizeof T);
      double PtbRuns = pairedRunRatio(
          G, Original,
          [&] {
            check(D.cuMemcpyHtoD(Tasks, Fresh.data(), Fresh.size()),
                  "run tasks");
            // From pageable memory the copy may return before its DMA ends.
            check(D.cuCtxSynchronize(), "run tasks");
          },
          [&](unsigned L) {
            R.launchPtbKernel(G.work(), Workers, Tasks + L * Stride);
          },
          Batch);
      D.cuMemFree(Tasks);
      LogSched += std::log(Sched / Orig);
      LogNoFirst += std::log(NoFirst / Orig);
      LogPtbRuns += std::log(PtbRuns);
      std::printf(" %5u %7.3f %7.3f %7.3f\n", Chunk, Sched / Orig,
                  NoFirst / Orig, PtbRuns);
      ++N;
    }
  if (N) {
    std::printf("geometric mean over %d kernels: slice %.3fx, s-runs %.3fx",
                N, std::exp(LogSlice / N), std::exp(LogSliceRuns / N));
    for (size_t M = 0; M < NumModes; ++M)
      std::printf(", %s %.3fx", Modes[M].Name, std::exp(LogPtb[M] / N));
    std::printf(", sched %.3fx, nofirst %.3fx, p-runs %.3fx\n",
                std::exp(LogSched / N), std::exp(LogNoFirst / N),
                std::exp(LogPtbRuns / N));
  }
  return 0;
}
