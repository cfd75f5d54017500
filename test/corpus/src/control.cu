// Baton test corpus: control flow and block-scope synchronisation that the
// other sources do not reach.
//
//  * switch_dispatch: a dense `switch`, which clang lowers to a jump table
//    (`.branchtargets` and `brx.idx`) and nvcc to a compare chain.
//  * barrier_object_phases: a libcu++ `cuda::barrier<thread_scope_block>`
//    in shared memory (mbarrier.init by one thread, arrive/wait phases). It
//    is never invalidated, as libcu++ leaves it, so a PTB worker initialises
//    the same mbarrier again in its next virtual block.
//  * bulk_copy_barrier: `cuda::memcpy_async` of an aligned tile into shared
//    memory completed on a `cuda::barrier`; for sm_90 libcu++ emits a TMA
//    bulk copy (`cp.async.bulk...mbarrier::complete_tx::bytes`) with
//    `mbarrier.expect_tx`.
//  * warp_redux_nanosleep: `__reduce_add_sync`/`__reduce_max_sync`
//    (redux.sync), a cooperative-groups tile reduction, and a bounded
//    `__nanosleep` back-off around a shared-memory flag.
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/barrier>
#include <cstdint>

namespace cg = cooperative_groups;

using BlockBarrier = cuda::barrier<cuda::thread_scope_block>;

// A barrier object in shared memory. Declared as raw storage because clang
// rejects a __shared__ variable with a constructor (nvcc only warns); init()
// constructs it.
#define SHARED_BLOCK_BARRIER(NAME)                                             \
  __shared__ alignas(BlockBarrier) unsigned char NAME##_storage[sizeof(BlockBarrier)]; \
  BlockBarrier &NAME = *reinterpret_cast<BlockBarrier *>(NAME##_storage)

extern "C" __global__ void switch_dispatch(const int* __restrict__ op,
                                           const float* __restrict__ x,
                                           float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float r;
  switch (op[i] & 7) {
    case 0: r = v + 1.5f; break;
    case 1: r = v * v; break;
    case 2: r = fmaxf(v, 0.f); break;
    case 3: r = 7.f - v; break;
    case 4: r = v * 0.5f + (float)(i & 15); break;
    case 5: r = -3.f * v; break;
    case 6: r = fminf(v, 0.25f); break;
    default: r = (float)(op[i] >> 3); break;
  }
  y[i] = r;
}
//@ launch switch_dispatch 1954,1,1 256,1,1 0 in:i32:500001 in:f32:500001 out:f32:500001 i32:500001

// Three phases over a block's tile, separated by a block-scope barrier
// object instead of __syncthreads: load, a neighbour exchange, then a
// reversal. Tail threads of the last block still arrive (they carry zeros).
extern "C" __global__ void barrier_object_phases(const float* __restrict__ x,
                                                 float* __restrict__ y, int n) {
  SHARED_BLOCK_BARRIER(bar);
  __shared__ float tile[256];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  tile[t] = i < n ? x[i] : 0.f;
  bar.arrive_and_wait();
  const float mixed = tile[t] + 0.5f * tile[(t + 1) % blockDim.x];
  bar.arrive_and_wait();
  tile[t] = mixed;
  bar.arrive_and_wait();
  if (i < n) y[i] = tile[blockDim.x - 1 - t] - mixed;
}
//@ launch barrier_object_phases 1173,1,1 256,1,1 0 in:f32:300001 out:f32:300001 i32:300001

// Each block copies its 1024-float tile of `x` into shared memory with one
// bulk copy completed on a barrier object, then writes the tile's per-warp
// sums of squares. `x` holds blocks * 1024 floats (16-byte aligned tiles).
extern "C" __global__ void bulk_copy_barrier(const float* __restrict__ x,
                                             float* __restrict__ sums) {
  constexpr int TileFloats = 1024;
  __shared__ alignas(128) float tile[TileFloats];
  SHARED_BLOCK_BARRIER(bar);
  const int t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  if (t == 0)
    cuda::memcpy_async(tile, x + (size_t)blockIdx.x * TileFloats,
                       cuda::aligned_size_t<16>(sizeof(tile)), bar);
  bar.arrive_and_wait();
  float acc = 0.f;
  for (int k = t; k < TileFloats; k += blockDim.x) acc = fmaf(tile[k], tile[k], acc);
  for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if ((t & 31) == 0) sums[blockIdx.x * (blockDim.x / 32) + t / 32] = acc;
}
//@ launch bulk_copy_barrier 937,1,1 128,1,1 0 in:f32:959488 out:f32:3748

// Per block: integer sum and max of its keys through redux.sync, the sum
// again through a 16-thread cooperative-groups tile, and a flag that warp 0
// raises in shared memory after a few nanosleeps while the other warps
// back off with __nanosleep until they see it (bounded: the flag is raised
// before the barrier that follows, so the loop always ends).
extern "C" __global__ void warp_redux_nanosleep(const unsigned* __restrict__ keys,
                                                unsigned* __restrict__ out, int n) {
  __shared__ unsigned warp_sum[8], warp_max[8], tile_sum[16];
  __shared__ volatile int ready;
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  const unsigned k = i < n ? keys[i] & 0xFFFFu : 0u;
  if (t == 0) ready = 0;
  __syncthreads();
  const unsigned s = __reduce_add_sync(0xffffffffu, k);
  const unsigned m = __reduce_max_sync(0xffffffffu, k);
  const cg::thread_block_tile<16> tile16 =
      cg::tiled_partition<16>(cg::this_thread_block());
  const unsigned ts = cg::reduce(tile16, k, cg::plus<unsigned>());
  if ((t & 31) == 0) { warp_sum[t / 32] = s; warp_max[t / 32] = m; }
  if (tile16.thread_rank() == 0) tile_sum[t / 16] = ts;
  if (t < 32) {
    for (int r = 0; r < 3; ++r) __nanosleep(64);
    if (t == 0) ready = 1;
  } else {
    unsigned backoff = 32;
    while (!ready) {
      __nanosleep(backoff);
      backoff = backoff < 1024 ? backoff * 2 : backoff;
    }
  }
  __syncthreads();
  if (t == 0) {
    unsigned sum = 0, mx = 0, tsum = 0;
    for (int w = 0; w < (int)blockDim.x / 32; ++w) {
      sum += warp_sum[w];
      mx = max(mx, warp_max[w]);
    }
    for (int g = 0; g < (int)blockDim.x / 16; ++g) tsum += tile_sum[g];
    out[3 * blockIdx.x] = sum;
    out[3 * blockIdx.x + 1] = mx;
    out[3 * blockIdx.x + 2] = tsum ^ sum; // 0 when both reductions agree
  }
}
//@ launch warp_redux_nanosleep 1954,1,1 256,1,1 0 in:u32:500001 out:u32:5862 i32:500001
