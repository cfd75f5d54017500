// Where the hardware puts the workers of a launch that vacates SMs, and so
// how many of them run side by side.
//
// A PTB launch asked to vacate SMs 0..n-1 (since task ABI 3) gets its usual
// number of workers; those that land on a vacated SM leave before their
// first claim. The scheduler turns such a launch's elapsed time into a
// per-block duration by dividing by the blocks that ran side by side
// (Scheduler::State::concurrency), and assumes the hardware spreads the
// workers over every SM, so that Width * kept / all of them stay. That
// holds if the vacated SMs are idle. If latency-critical blocks fill them,
// the workers may all land on the kept SMs instead, up to the blocks an SM
// holds, and more of them run side by side than assumed.
//
// This probe measures it without Baton's runtime: the PTB loop written out
// (read %smid, leave below the watermark, claim a virtual block with
// atomicAdd, spin for its duration), next to a stand-in for LC work on a
// high-priority stream that keeps blocks spinning on SMs 0..n-1 only
// (blocks that land elsewhere exit at once). Each line: the scenario, the
// workers that stayed and that left, the most workers that ran at once on
// one kept SM, the kept SMs that ran any, the concurrency measured (block
// time run / elapsed) and the one the scheduler's formula gives.
//
// Usage: placement_probe [BLOCK_US]    (bench/vacate_placement/run.sh)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

#define CHECK(X)                                                              \
  do {                                                                        \
    cudaError_t E = (X);                                                      \
    if (E != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #X,          \
                   cudaGetErrorString(E));                                    \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

__device__ __forceinline__ unsigned long long globalTimer() {
  unsigned long long T;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T));
  return T;
}

__device__ __forceinline__ unsigned smId() {
  unsigned Id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(Id));
  return Id;
}

/// The LC stand-in: blocks on SMs below \p Watermark spin until \p Release
/// is set (or \p MaxNs passes); the others exit at once. Its dynamic
/// shared memory, unused, is what keeps other blocks off an SM. \p Placed
/// counts the spinners per SM; each block sets its \p Settled flag (host
/// memory, no atomics over the bus) once placed or gone.
__global__ void lcStandIn(unsigned Watermark, volatile unsigned *Release,
                          unsigned long long MaxNs, unsigned *Placed,
                          volatile unsigned *Settled) {
  unsigned Sm = smId();
  bool Stay = Sm < Watermark;
  if (threadIdx.x == 0) {
    if (Stay)
      atomicAdd(&Placed[Sm], 1u);
    __threadfence_system();
    Settled[blockIdx.x] = 1;
  }
  if (!Stay)
    return;
  unsigned long long Start = globalTimer();
  if (threadIdx.x == 0)
    while (!*Release && globalTimer() - Start < MaxNs) {
    }
  __syncthreads();
}

struct WorkerRecord {
  unsigned Sm;
  unsigned Blocks;   ///< virtual blocks it ran; ~0u: left at once
  unsigned long long Start, End;
};

/// The PTB loop: leave below the watermark, else claim and run virtual
/// blocks of \p BlockNs until \p End are claimed.
__global__ void workers(unsigned Watermark, unsigned *Cursor, unsigned End,
                        unsigned long long BlockNs, WorkerRecord *Records) {
  // The launch's dynamic shared memory, unused, sets the workers per SM.
  __shared__ unsigned Claimed;
  WorkerRecord R{smId(), 0, globalTimer(), 0};
  if (R.Sm < Watermark) {
    if (threadIdx.x == 0) {
      R.Blocks = ~0u;
      R.End = R.Start;
      Records[blockIdx.x] = R;
    }
    return;
  }
  for (;;) {
    if (threadIdx.x == 0)
      Claimed = atomicAdd(Cursor, 1u);
    __syncthreads();
    if (Claimed >= End)
      break;
    unsigned long long T = globalTimer();
    while (globalTimer() - T < BlockNs) {
    }
    ++R.Blocks;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    R.End = globalTimer();
    Records[blockIdx.x] = R;
  }
}

enum class Lc { None, Full, Partial };

struct Scenario {
  const char *Name;
  unsigned WorkersPerSm; ///< the launch's width, per SM of the device
  bool Vacate;           ///< watermark at half the SMs
  Lc Neighbour;
};

struct Device {
  int Sms = 0;
  int MaxSharedOptin = 0;
  int SharedPerSm = 0;
};

/// Shared memory per worker such that two fit on an SM and three do not.
size_t workerShared(const Device &D) {
  return static_cast<size_t>(D.SharedPerSm) / 2 - 2048;
}

void run(const Device &D, const Scenario &S, unsigned long long BlockNs,
         cudaStream_t High, cudaStream_t Low) {
  const unsigned All = static_cast<unsigned>(D.Sms);
  const unsigned Watermark = S.Vacate ? All / 2 : 0;
  const unsigned Kept = All - Watermark;
  const unsigned Width = S.WorkersPerSm * All;
  const unsigned Threads = 128;
  const unsigned VirtualBlocks = 40 * All;

  unsigned *Release, *Placed, *Settled, *Cursor;
  WorkerRecord *Records;
  CHECK(cudaHostAlloc(&Release, sizeof(unsigned), cudaHostAllocMapped));
  const unsigned MaxLcBlocks = 4 * All;
  CHECK(cudaHostAlloc(&Settled, MaxLcBlocks * sizeof(unsigned),
                      cudaHostAllocMapped));
  CHECK(cudaMalloc(&Placed, All * sizeof(unsigned)));
  CHECK(cudaMalloc(&Cursor, sizeof(unsigned)));
  CHECK(cudaMalloc(&Records, Width * sizeof(WorkerRecord)));
  CHECK(cudaMemset(Placed, 0, All * sizeof(unsigned)));
  CHECK(cudaMemset(Cursor, 0, sizeof(unsigned)));
  CHECK(cudaDeviceSynchronize());
  *Release = 0;
  std::fill(Settled, Settled + MaxLcBlocks, 0u);

  unsigned LcBlocks = 0;
  if (S.Neighbour != Lc::None) {
    // Full: one block holds an SM's shared memory. Partial: small blocks,
    // several to an SM, leaving room for workers.
    size_t Shared =
        S.Neighbour == Lc::Full ? static_cast<size_t>(D.MaxSharedOptin) : 0;
    LcBlocks = S.Neighbour == Lc::Full ? MaxLcBlocks : 2 * All;
    CHECK(cudaFuncSetAttribute(lcStandIn,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               D.MaxSharedOptin));
    lcStandIn<<<LcBlocks, Threads, Shared, High>>>(
        Watermark, Release, 2000000000ull, Placed, Settled);
    CHECK(cudaGetLastError());
    volatile unsigned *Seen = Settled;
    for (unsigned I = 0; I < LcBlocks; ++I)
      while (!Seen[I]) {
      }
  }

  size_t Shared = workerShared(D);
  CHECK(cudaFuncSetAttribute(workers,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(Shared)));
  workers<<<Width, Threads, Shared, Low>>>(Watermark, Cursor, VirtualBlocks,
                                           BlockNs, Records);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(Low));
  *Release = 1;
  CHECK(cudaDeviceSynchronize());

  std::vector<WorkerRecord> R(Width);
  std::vector<unsigned> LcPlaced(All);
  CHECK(cudaMemcpy(R.data(), Records, Width * sizeof(WorkerRecord),
                   cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(LcPlaced.data(), Placed, All * sizeof(unsigned),
                   cudaMemcpyDeviceToHost));
  unsigned LcSms = 0;
  for (unsigned N : LcPlaced)
    LcSms += N != 0;

  unsigned Stayed = 0, Left = 0, BlocksRun = 0;
  unsigned long long First = ~0ull, Last = 0;
  // %smid need not be below the SM count: size by the largest seen.
  unsigned SmIds = All;
  for (const WorkerRecord &W : R)
    SmIds = std::max(SmIds, W.Sm + 1);
  std::vector<std::vector<std::pair<unsigned long long, int>>> Events(SmIds);
  for (const WorkerRecord &W : R) {
    if (W.Blocks == ~0u) {
      ++Left;
      continue;
    }
    ++Stayed;
    BlocksRun += W.Blocks;
    First = std::min(First, W.Start);
    Last = std::max(Last, W.End);
    Events[W.Sm].push_back({W.Start, +1});
    Events[W.Sm].push_back({W.End, -1});
  }
  // The most workers side by side on one SM, and the SMs that ran any.
  unsigned MostOnAnSm = 0, SmsUsed = 0;
  for (auto &E : Events) {
    if (E.empty())
      continue;
    ++SmsUsed;
    std::sort(E.begin(), E.end()); // an end before a start at the same time
    int Now = 0;
    for (auto [T, D] : E)
      MostOnAnSm = std::max<unsigned>(MostOnAnSm, Now += D);
  }
  double Elapsed = static_cast<double>(Last - First);
  double Measured = BlocksRun * static_cast<double>(BlockNs) / Elapsed;
  // Scheduler::State::concurrency: min(width, resident) * kept / all.
  unsigned Resident = 2 * All;
  double Formula = static_cast<double>(std::min(Width, Resident)) * Kept / All;
  std::printf("%-30s %6u %6u %5u %6u %6u %7.1f %7.1f %8.1f\n", S.Name, Stayed,
              Left, LcSms, MostOnAnSm, SmsUsed, Measured, Formula,
              Elapsed / 1e3);
  if (BlocksRun != VirtualBlocks)
    std::printf("  error: %u virtual blocks ran, %u expected\n", BlocksRun,
                VirtualBlocks);

  CHECK(cudaFreeHost(Release));
  CHECK(cudaFreeHost(Settled));
  CHECK(cudaFree(Placed));
  CHECK(cudaFree(Cursor));
  CHECK(cudaFree(Records));
}

} // namespace

int main(int Argc, char **Argv) {
  double BlockUs = Argc > 1 ? std::atof(Argv[1]) : 20.0;
  if (!(BlockUs > 0)) {
    std::fprintf(stderr, "usage: placement_probe [BLOCK_US > 0]\n");
    return 2;
  }
  Device D;
  CHECK(cudaDeviceGetAttribute(&D.Sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&D.MaxSharedOptin,
                               cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CHECK(cudaDeviceGetAttribute(&D.SharedPerSm,
                               cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  cudaDeviceProp Prop;
  CHECK(cudaGetDeviceProperties(&Prop, 0));
  int Least, Greatest;
  CHECK(cudaDeviceGetStreamPriorityRange(&Least, &Greatest));
  cudaStream_t High, Low;
  CHECK(cudaStreamCreateWithPriority(&High, cudaStreamNonBlocking, Greatest));
  CHECK(cudaStreamCreateWithPriority(&Low, cudaStreamNonBlocking, Least));

  std::printf("%s, %d SMs; workers of %zu B shared (2 to an SM), virtual "
              "blocks of %.0f us, vacating SMs 0..%d\n",
              Prop.name, D.Sms, workerShared(D), BlockUs, D.Sms / 2 - 1);
  const Scenario Scenarios[] = {
      {"1/SM, no vacate, no LC", 1, false, Lc::None},
      {"2/SM, no vacate, no LC", 2, false, Lc::None},
      {"1/SM, vacate, SMs idle", 1, true, Lc::None},
      {"2/SM, vacate, SMs idle", 2, true, Lc::None},
      {"1/SM, vacate, LC fills SMs", 1, true, Lc::Full},
      {"2/SM, vacate, LC fills SMs", 2, true, Lc::Full},
      {"1/SM, vacate, LC leaves room", 1, true, Lc::Partial},
      {"2/SM, vacate, LC leaves room", 2, true, Lc::Partial},
  };
  std::printf("%-30s %6s %6s %5s %6s %6s %7s %7s %8s\n", "scenario", "stayed",
              "left", "LCsm", "max/SM", "SMs", "conc", "formula", "us");
  for (int Round = 0; Round < 2; ++Round)
    for (const Scenario &S : Scenarios)
      run(D, S, static_cast<unsigned long long>(BlockUs * 1e3), High, Low);
  return 0;
}
