// What a PTB worker pays for on short blocks, one ingredient at a time.
//
// The body is the colocation MLP's bias + GELU (one element a thread, 256
// threads a block): about 8 us for 4096 blocks on an H100, the kind of
// kernel on which the PTB variant costs 1.6-1.8x (docs/benchmarks.md). The
// PTB loop of the compilers is written out here in CUDA, with its task in
// the real layout (baton/task.h), in these forms:
//
//   late        the compilers' default: after each body the leader reads
//               `preempt`, then claims with atomicAdd; barrier; next body
//   late-cursor late, plus the read of `next` a worker makes before its
//               first claim (the compilers' start)
//   late-nopre  late without the `preempt` read (never preemptible)
//   prefetch    BATON_TASK_PREFETCH as emitted: the leader claims block i+1
//               and stores it before it runs body i
//   deferred    the claim of block i+1 is issued before body i and its
//               result stored after it, so the atomic's latency hides
//               behind the body; `preempt` still read before the claim
//   lagged      deferred, with the `preempt` value read one block earlier:
//               nothing the leader waits for before its body
//   static      no claims: worker w runs blocks w, w + W, ... (the floor of
//               any persistent loop with one barrier a block)
//   static-free static without the barrier: each thread runs its worker's
//               blocks on its own (a body with no barrier and no shared
//               memory needs none), the floor of any persistent loop
//   static-runs no claims: worker w runs the run of s = ceil(blocks / W)
//               blocks from w * s, as the first shares of task.h hand out
//   static-slot the blocks of static, but handed out as the compilers'
//               variants hand out a first share: the leader keeps the
//               claim {cur, lim, view, step} in shared memory, reads the
//               grid from the task to decode the block, and publishes
//               {v, x, y, z} in the double-buffered slot before the barrier
//   static-dsmem static, launched with the PTB variants' extra 64 bytes of
//               dynamic shared memory (BATON_PTB_DYNAMIC_SHARED_BYTES)
//   slot-1load  static-slot, the leader's first hand-out reading the grid
//               with `begin`, in one round of loads (static-slot's waits
//               for `begin`'s claim to be stored first, as emitted)
//   slot-early  static-slot, the leader publishing block i+1 before body i
//               rather than after it (no claim to wait for in a share)
//   slot-early-1load  both
//   slot-reggrid static-slot, the grid read once, with `begin`, and kept in
//               a register (the variants reload it at every fetch)
//   slot-nodecode static-slot without the grid: the block is its x
//   slot-smemgrid static-slot, the grid read once, with `begin`, and kept in
//               shared memory next to the claim
//   slot-early-smem  slot-smemgrid, publishing block i+1 before body i
//   slot-early-check slot-early-smem, and after the body the leader reads
//               the slot it filled for a sentinel, as a variant that
//               publishes held blocks early and claims late would
//   first       late, but worker w runs block w first without a claim (the
//               host starts the cursor at W)
//   c4          late with claims of 4 blocks
//   first-c4    first with claims of 4 blocks
//   c4-nopre    c4 without the `preempt` read
//   c4-flag     c4, and the claim that reaches `end` raises a flag on the
//               `preempt` line, which the leader reads with `preempt`: a
//               worker that sees it leaves without a claim
//   late-gpu    late, `preempt` read with ld.relaxed.gpu instead of
//               ld.volatile (which PTX defines as relaxed at system scope)
//   c4-gpu      c4, the same way
//
// The fetch is the protocol's, not the emitted code: the claim lives in
// registers rather than shared memory, and there is no guided claim size
// (a division), no reload of task fields and no decode of the block index.
// It isolates what the two words every claim touches cost; the variants
// themselves are timed by bench/variant_overhead.cpp.
//
// After its timing each form runs once more on cleared output with a run
// counter per block: the output must equal the original's and every block
// must have run exactly once.
// Usage: ptb_anatomy [ELEMENTS...]   (default: 262144 1048576 4194304)
#include "baton/task.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <vector>

#include <cuda_runtime.h>

namespace {

constexpr unsigned Threads = 256;
constexpr unsigned Columns = 1024;
constexpr unsigned StopBlock = 0xffffffffu;
constexpr int Reps = 31;

void check(cudaError_t E, const char *What) {
  if (E != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", What, cudaGetErrorString(E));
    std::exit(1);
  }
}

struct Buffers {
  const float *X, *Bias;
  float *Y, *Z;
  unsigned N;
  unsigned *Runs; // per block, counted in the check run only
};

__device__ __forceinline__ void body(unsigned V, const Buffers &B) {
  if (B.Runs && threadIdx.x == 0)
    atomicAdd(&B.Runs[V], 1u);
  unsigned I = V * blockDim.x + threadIdx.x;
  if (I >= B.N)
    return;
  float T = B.X[I] + B.Bias[I % Columns];
  B.Y[I] = T;
  B.Z[I] = 0.5f * T * (1.f + tanhf(0.7978845608f * (T + 0.044715f * T * T * T)));
}

__global__ void original(Buffers B) { body(blockIdx.x, B); }

enum Form {
  Late, LateCursor, LateNoPreempt, Prefetch, Deferred, Lagged, Static, First,
  C4, FirstC4, C4NoPreempt, C4Flag, LateGpu, C4Gpu, StaticRuns, StaticSlot,
  StaticDsmem, SlotOneLoad, SlotEarly, SlotEarlyOneLoad, SlotRegGrid,
  SlotNoDecode, SlotSmemGrid, SlotEarlySmem, SlotEarlyCheck, StaticFree
};
const char *const FormNames[] = {"late",     "late-cursor", "late-nopre",
                                 "prefetch", "deferred",    "lagged",
                                 "static",   "first",       "c4",
                                 "first-c4", "c4-nopre",    "c4-flag",
                                 "late-gpu", "c4-gpu",      "static-runs",
                                 "static-slot", "static-dsmem", "slot-1load",
                                 "slot-early", "slot-early-1load",
                                 "slot-reggrid", "slot-nodecode",
                                 "slot-smemgrid", "slot-early-smem",
                                 "slot-early-check", "static-free"};
static_assert(std::size(FormNames) == StaticFree + 1,
              "a name for every form");

__device__ __forceinline__ unsigned smId() {
  unsigned S;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(S));
  return S;
}

template <Form F = Late>
__device__ __forceinline__ unsigned readPreempt(baton_task *T) {
  if (F != LateGpu && F != C4Gpu)
    return *reinterpret_cast<volatile unsigned *>(&T->preempt);
  unsigned V;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];"
               : "=r"(V)
               : "l"(&T->preempt)
               : "memory");
  return V;
}

template <Form F> __device__ __forceinline__ unsigned claim(baton_task *T) {
  if (F != LateNoPreempt && smId() < readPreempt(T))
    return StopBlock;
  return atomicAdd(&T->next, 1u);
}

__host__ __device__ constexpr bool isFirst(Form F) { return F == First || F == FirstC4; }
__host__ __device__ constexpr bool isLate(Form F) {
  return F == Late || F == LateCursor || F == LateNoPreempt || F == First ||
         F == C4 || F == FirstC4 || F == C4NoPreempt || F == C4Flag ||
         F == LateGpu || F == C4Gpu;
}

// The late forms' claims, of Chunk blocks, the leader's claim in Cur/Lim.
template <Form F>
__device__ __forceinline__ unsigned nextBlock(baton_task *T, unsigned End,
                                              unsigned &Cur, unsigned &Lim) {
  constexpr unsigned Chunk =
      F == C4 || F == FirstC4 || F == C4NoPreempt || F == C4Flag ||
              F == C4Gpu
          ? 4
          : 1;
  volatile unsigned *Exhausted =
      reinterpret_cast<volatile unsigned *>(&T->reserved[0]);
  if (Chunk > 1 && Cur + 1 < Lim)
    return ++Cur;
  if (F == C4Flag && *Exhausted)
    return StopBlock;
  if (F != LateNoPreempt && F != C4NoPreempt && smId() < readPreempt<F>(T))
    return StopBlock;
  Cur = atomicAdd(&T->next, Chunk);
  Lim = Cur + Chunk;
  if (F == C4Flag && Cur < End && Lim >= End)
    *Exhausted = 1;
  return Cur;
}

// A store the compiler may not move past the body (the emitted order).
__device__ __forceinline__ void storeNow(unsigned *Slot, unsigned V) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(Slot))),
               "r"(V)
               : "memory");
}

// Shared-memory vectors as the variants access them, kept in program order.
__device__ __forceinline__ uint4 loadShared4(const uint4 *P) {
  uint4 V;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(V.x), "=r"(V.y), "=r"(V.z), "=r"(V.w)
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(P)))
               : "memory");
  return V;
}
__device__ __forceinline__ void storeShared4(uint4 *P, uint4 V) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(P))),
               "r"(V.x), "r"(V.y), "r"(V.z), "r"(V.w)
               : "memory");
}

// Where a hand-out of the slot forms reads the grid it decodes against.
enum class GridFrom {
  Task,     // a cached ld.global at every fetch, as emitted
  Register, // read once with `begin`, kept in a register
  Shared,   // read once with `begin`, kept in shared memory by the claim
  None      // no decode: the block is its x
};

// What distinguishes the slot forms: where the grid comes from, whether the
// first fetch reads the grid with `begin` (one round of loads), whether the
// leader publishes block i+1 before body i, and whether it then checks the
// slot after the body for a sentinel (what a late claim would replace).
struct SlotForm {
  GridFrom Grid = GridFrom::Task;
  bool OneLoad = false, Early = false, LateCheck = false;
};
template <Form F> __host__ __device__ constexpr SlotForm slotForm() {
  switch (F) {
  case StaticSlot: return {};
  case SlotOneLoad: return {GridFrom::Task, true};
  case SlotEarly: return {GridFrom::Task, false, true};
  case SlotEarlyOneLoad: return {GridFrom::Task, true, true};
  case SlotRegGrid: return {GridFrom::Register, true};
  case SlotNoDecode: return {GridFrom::None, true};
  case SlotSmemGrid: return {GridFrom::Shared, true};
  case SlotEarlySmem: return {GridFrom::Shared, true, true};
  case SlotEarlyCheck: return {GridFrom::Shared, true, true, true};
  default: return {GridFrom::None, false, false, false};
  }
}
template <Form F> __host__ __device__ constexpr bool isSlot() {
  return F == StaticSlot || F == SlotOneLoad || F == SlotEarly ||
         F == SlotEarlyOneLoad || F == SlotRegGrid || F == SlotNoDecode ||
         F == SlotSmemGrid || F == SlotEarlySmem || F == SlotEarlyCheck;
}

// The leader's fetch of a first share as the variants emit it (StaticSlot):
// the claim's state lives in shared memory, the block is decoded against
// the grid, and {v, x, y, z} goes to the slot. \p Kept is the grid read at
// the start (GridFrom::Register), \p GridWord its place in shared memory
// (GridFrom::Shared).
template <GridFrom G>
__device__ __forceinline__ void publishShareBlock(baton_task *T, uint4 *Claim,
                                                  uint4 *Slot, unsigned Kept,
                                                  unsigned *GridWord) {
  uint4 C = loadShared4(Claim);
  unsigned V = C.x + C.w;
  if (V >= C.y)
    V = StopBlock; // the share is over: this probe makes no claims
  C.x = V;
  storeShared4(Claim, C);
  unsigned GridX = Kept;
  if (G == GridFrom::None) {
    storeShared4(Slot, make_uint4(V, V, V, V));
    return;
  }
  if (G == GridFrom::Task)
    // A cached load at every fetch, as emitted (asm keeps it in the loop).
    asm volatile("ld.global.u32 %0, [%1];"
                 : "=r"(GridX)
                 : "l"(&T->grid_x)
                 : "memory");
  if (G == GridFrom::Shared)
    asm volatile("ld.shared.u32 %0, [%1];"
                 : "=r"(GridX)
                 : "r"(static_cast<unsigned>(__cvta_generic_to_shared(GridWord)))
                 : "memory");
  unsigned X = V < GridX ? V : V % GridX;
  storeShared4(Slot, make_uint4(V, X, V, V));
}

// The slot forms' loop (see slotForm).
template <Form F>
__device__ __forceinline__ void runSlotForm(const Buffers &B, baton_task *T,
                                            unsigned End, bool Leader) {
  constexpr SlotForm S = slotForm<F>();
  __shared__ uint4 SlotV4[2], ClaimV4;
  __shared__ unsigned GridWord;
  unsigned Kept = 0;
  if (Leader) {
    unsigned Begin = T->begin;
    unsigned Grid = S.OneLoad ? T->grid_x : 0;
    if (S.Grid == GridFrom::Register)
      Kept = Grid;
    storeShared4(&ClaimV4, make_uint4(Begin + blockIdx.x - gridDim.x, End,
                                      End, gridDim.x));
    if (S.Grid == GridFrom::Shared)
      GridWord = Grid;
    publishShareBlock<S.Grid>(T, &ClaimV4, &SlotV4[0], Grid, &GridWord);
    // The slot a late check reads first must not hold the sentinel.
    if (S.LateCheck)
      storeShared4(&SlotV4[1], make_uint4(StopBlock, 0, 0, 0));
  }
  __syncthreads();
  unsigned Parity = 0;
  for (;;) {
    uint4 Got = loadShared4(&SlotV4[Parity]);
    if (Got.x >= End)
      break;
    Parity ^= 1;
    if (S.Early && Leader)
      publishShareBlock<S.Grid>(T, &ClaimV4, &SlotV4[Parity], Kept, &GridWord);
    body(Got.y, B);
    if (!S.Early && Leader)
      publishShareBlock<S.Grid>(T, &ClaimV4, &SlotV4[Parity], Kept, &GridWord);
    if (S.LateCheck && Leader) {
      // The sentinel (here never found) would ask for a claim.
      constexpr unsigned ClaimNeeded = StopBlock - 1;
      if (loadShared4(&SlotV4[Parity]).x == ClaimNeeded)
        storeShared4(&SlotV4[Parity], make_uint4(StopBlock, 0, 0, 0));
    }
    __syncthreads();
  }
}

template <Form F> __global__ void ptb(Buffers B, baton_task *T) {
  __shared__ unsigned Slot[2];
  unsigned End = T->end;
  bool Leader = threadIdx.x == 0;
  if (F == Static || F == StaticDsmem) {
    for (unsigned V = T->begin + blockIdx.x; V < End; V += gridDim.x) {
      body(V, B);
      __syncthreads();
    }
  } else if (F == StaticFree) {
    for (unsigned V = T->begin + blockIdx.x; V < End; V += gridDim.x)
      body(V, B);
  } else if constexpr (isSlot<F>()) {
    runSlotForm<F>(B, T, End, Leader);
  } else if (F == StaticRuns) {
    unsigned Share = (End - T->begin + gridDim.x - 1) / gridDim.x;
    unsigned First = T->begin + blockIdx.x * Share;
    for (unsigned V = First; V < End && V < First + Share; ++V) {
      body(V, B);
      __syncthreads();
    }
  } else {
    unsigned Pre = 0, Cur = 0, Lim = 0;
    if (Leader) {
      unsigned First;
      if (isFirst(F)) {
        First = T->begin + blockIdx.x;
      } else if (F == LateCursor) {
        // Only the dependency matters: the claim waits for the read.
        unsigned Cursor = *reinterpret_cast<volatile unsigned *>(&T->next);
        First = Cursor == StopBlock ? StopBlock : nextBlock<F>(T, End, Cur, Lim);
      } else if (isLate(F)) {
        First = nextBlock<F>(T, End, Cur, Lim);
      } else {
        First = claim<F>(T);
      }
      if (F == Lagged)
        Pre = readPreempt(T);
      Slot[0] = First;
    }
    __syncthreads();
    unsigned Parity = 0;
    for (;;) {
      unsigned V = Slot[Parity];
      if (V >= End)
        break;
      Parity ^= 1;
      unsigned Next = 0;
      if (Leader) {
        if (F == Prefetch)
          storeNow(&Slot[Parity], claim<F>(T));
        if (F == Deferred)
          Next = claim<F>(T);
        if (F == Lagged) {
          Next = smId() < Pre ? StopBlock : atomicAdd(&T->next, 1u);
          Pre = readPreempt(T);
        }
      }
      body(V, B);
      if (Leader) {
        if (isLate(F))
          Slot[Parity] = nextBlock<F>(T, End, Cur, Lim);
        if (F == Deferred || F == Lagged)
          Slot[Parity] = Next;
      }
      __syncthreads();
    }
  }
  if (Leader)
    atomicAdd(&T->workers_exited, 1u);
}

template <typename Kernel> int workersOf(Kernel K, int Sms) {
  int PerSm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, K, Threads, 0),
        "occupancy");
  return PerSm * Sms;
}

struct Timer {
  cudaEvent_t A, B;
  Timer() {
    check(cudaEventCreate(&A), "event");
    check(cudaEventCreate(&B), "event");
  }
  template <typename Launch> float medianUs(Launch L) {
    std::vector<float> Us;
    for (int I = 0; I < Reps + 3; ++I) {
      L(A, B);
      check(cudaEventSynchronize(B), "sync");
      float Ms = 0;
      check(cudaEventElapsedTime(&Ms, A, B), "elapsed");
      if (I >= 3)
        Us.push_back(Ms * 1e3f);
    }
    std::nth_element(Us.begin(), Us.begin() + Us.size() / 2, Us.end());
    return Us[Us.size() / 2];
  }
};

} // namespace

int main(int argc, char **argv) {
  std::vector<unsigned> Sizes;
  for (int I = 1; I < argc; ++I)
    Sizes.push_back(static_cast<unsigned>(std::strtoul(argv[I], nullptr, 10)));
  if (Sizes.empty())
    Sizes = {262144, 1048576, 4194304};
  cudaDeviceProp P;
  check(cudaGetDeviceProperties(&P, 0), "device");
  std::printf("device: %s, %d SMs; median of %d launches (us); ratio to the "
              "original\n",
              P.name, P.multiProcessorCount, Reps);
  unsigned MaxN = *std::max_element(Sizes.begin(), Sizes.end());
  std::vector<float> Host(MaxN);
  for (unsigned I = 0; I < MaxN; ++I)
    Host[I] = static_cast<float>((I * 2654435761u) % 2001) / 1000.f - 1.f;
  float *X, *Bias, *Y, *Z;
  unsigned *Runs;
  baton_task *Task;
  check(cudaMalloc(&X, MaxN * 4), "alloc");
  check(cudaMalloc(&Bias, Columns * 4), "alloc");
  check(cudaMalloc(&Y, MaxN * 4), "alloc");
  check(cudaMalloc(&Z, MaxN * 4), "alloc");
  check(cudaMalloc(&Task, sizeof(baton_task)), "alloc");
  check(cudaMalloc(&Runs, (MaxN / Threads + 1) * 4), "alloc");
  check(cudaMemcpy(X, Host.data(), MaxN * 4, cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(Bias, Host.data(), Columns * 4, cudaMemcpyHostToDevice),
        "copy");
  void (*const Kernels[])(Buffers, baton_task *) = {
      ptb<Late>,     ptb<LateCursor>, ptb<LateNoPreempt>, ptb<Prefetch>,
      ptb<Deferred>, ptb<Lagged>,     ptb<Static>,        ptb<First>,
      ptb<C4>,       ptb<FirstC4>,    ptb<C4NoPreempt>,   ptb<C4Flag>,
      ptb<LateGpu>,  ptb<C4Gpu>,      ptb<StaticRuns>,    ptb<StaticSlot>,
      ptb<StaticDsmem>, ptb<SlotOneLoad>, ptb<SlotEarly>,
      ptb<SlotEarlyOneLoad>, ptb<SlotRegGrid>, ptb<SlotNoDecode>,
      ptb<SlotSmemGrid>, ptb<SlotEarlySmem>, ptb<SlotEarlyCheck>,
      ptb<StaticFree>};
  static_assert(std::size(Kernels) == std::size(FormNames));
  std::printf("%9s %7s %8s", "elements", "blocks", "orig");
  for (const char *Name : FormNames)
    std::printf(" %12s", Name);
  std::printf("\n");
  Timer Clock;
  int Failures = 0;
  for (unsigned N : Sizes) {
    unsigned Blocks = (N + Threads - 1) / Threads;
    Buffers B{X, Bias, Y, Z, N, nullptr};
    float Orig = Clock.medianUs([&](cudaEvent_t A, cudaEvent_t E) {
      check(cudaEventRecord(A), "record");
      original<<<Blocks, Threads>>>(B);
      check(cudaEventRecord(E), "record");
    });
    std::vector<float> Want(N), Got(N);
    std::vector<unsigned> Counted(Blocks);
    check(cudaMemcpy(Want.data(), Z, N * 4, cudaMemcpyDeviceToHost), "copy");
    std::printf("%9u %7u %8.2f", N, Blocks, Orig);
    // Kernels[F] is ptb<F>, in the order of Form.
    for (size_t F = 0; F < std::size(Kernels); ++F) {
      auto *K = Kernels[F];
      unsigned Workers = std::min<unsigned>(
          workersOf(K, P.multiProcessorCount), Blocks);
      baton_task Fresh;
      std::memset(&Fresh, 0, sizeof Fresh);
      Fresh.grid_x = Blocks;
      Fresh.grid_y = Fresh.grid_z = 1;
      Fresh.end = Blocks;
      // The first forms' workers run blocks [0, Workers) without claims.
      Fresh.next = isFirst(static_cast<Form>(F)) ? Workers : 0;
      size_t Dsmem = F == StaticDsmem ? BATON_PTB_DYNAMIC_SHARED_BYTES : 0;
      float Us = Clock.medianUs([&](cudaEvent_t A, cudaEvent_t E) {
        check(cudaMemcpy(Task, &Fresh, sizeof Fresh, cudaMemcpyHostToDevice),
              "task");
        check(cudaEventRecord(A), "record");
        K<<<Workers, Threads, Dsmem>>>(B, Task);
        check(cudaEventRecord(E), "record");
      });
      // The check run.
      check(cudaMemset(Z, 0, N * 4), "clear");
      check(cudaMemset(Runs, 0, Blocks * 4), "clear");
      check(cudaMemcpy(Task, &Fresh, sizeof Fresh, cudaMemcpyHostToDevice),
            "task");
      Buffers Counting = B;
      Counting.Runs = Runs;
      K<<<Workers, Threads, Dsmem>>>(Counting, Task);
      check(cudaDeviceSynchronize(), "check run");
      check(cudaMemcpy(Got.data(), Z, N * 4, cudaMemcpyDeviceToHost), "copy");
      check(cudaMemcpy(Counted.data(), Runs, Blocks * 4,
                       cudaMemcpyDeviceToHost),
            "copy");
      bool Same = std::memcmp(Got.data(), Want.data(), N * 4) == 0 &&
                  std::all_of(Counted.begin(), Counted.end(),
                              [](unsigned C) { return C == 1; });
      Failures += !Same;
      std::printf(" %6.2f %5.3f%s", Us, Us / Orig, Same ? "" : "!");
    }
    std::printf("\n");
  }
  if (Failures)
    std::printf("%d forms computed a different result or ran a block other "
                "than once (marked !)\n",
                Failures);
  return Failures ? 1 : 0;
}
