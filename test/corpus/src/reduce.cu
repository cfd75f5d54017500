// Baton test corpus: reductions and scans.
//
//  * reduce_sum_early_return: the textbook shared-memory tree reduction with
//    an EARLY `if (i >= n) return;` before the barriers. In the last block the
//    tail threads leave and the rest still execute __syncthreads(); a rewriter
//    that turns `ret` into "end of virtual block" must keep those barriers
//    working (or refuse). The tree only reads slots written by live threads,
//    so the result does not depend on uninitialised shared memory.
//  * reduce_max_warp_shuffle: grid-stride + __shfl_xor_sync butterfly.
//  * sum_i32_to_i64_atomic: block partials folded into one global 64-bit
//    integer with atomicAdd (integer: order-independent, bitwise stable).
//  * scan_u32_block: block-wide inclusive scan (warp shuffles + shared).
//  * dot_f64_blocks: double-precision tree with a loop of __syncthreads.
//  * tile_rotate_sum: a loop of `tiles` steps (a kernel argument), each
//    staging 256 values in shared memory between two __syncthreads and
//    adding a neighbour's. Every branch is the same in all threads of a
//    block, so the PTB variants need no drain (BarrierDivergence.h on both
//    sides) and keep the barriers as they are.
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

#include <cstdint>
#include <math.h>

#define RBLOCK 256

extern "C" __global__ void reduce_sum_early_return(const float* __restrict__ in,
                                                   float* __restrict__ block_sums,
                                                   int n) {
  __shared__ float s[RBLOCK];
  const unsigned tid = threadIdx.x;
  const int i = blockIdx.x * RBLOCK + tid;
  if (i >= n) return;  // tail threads of the last block leave before the barriers
  s[tid] = in[i];
  __syncthreads();
  for (unsigned stride = RBLOCK / 2; stride > 0; stride >>= 1) {
    if (tid < stride && i + stride < n) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = s[0];
}
// n = 250001: the last of 977 blocks has 145 live threads.
//@ launch reduce_sum_early_return 977,1,1 256,1,1 0 in:f32:250001 out:f32:977 i32:250001

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

extern "C" __global__ void reduce_max_warp_shuffle(const float* __restrict__ in,
                                                   float* __restrict__ block_max,
                                                   int n) {
  __shared__ float warp_best[32];
  float v = -INFINITY;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v = fmaxf(v, in[i]);
  v = warp_max(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_best[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int nw = (blockDim.x + 31) >> 5;
    v = warp_max(lane < nw ? warp_best[lane] : -INFINITY);
    if (lane == 0) block_max[blockIdx.x] = v;
  }
}
//@ launch reduce_max_warp_shuffle 300,1,1 512,1,1 0 in:f32:1000003 out:f32:300 i32:1000003

extern "C" __global__ void sum_i32_to_i64_atomic(const int* __restrict__ in,
                                                 long long* __restrict__ total,
                                                 int n) {
  long long v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(reinterpret_cast<unsigned long long*>(total), (unsigned long long)v);
}
//@ launch sum_i32_to_i64_atomic 500,1,1 256,1,1 0 in:i32:2000003 inout:i64:1 i32:2000003

// Inclusive scan of ITEMS consecutive values per thread, blockDim.x * ITEMS
// per block; also records each block's total (input to a second-level scan).
#define SCAN_ITEMS 4
extern "C" __global__ void scan_u32_block(const unsigned* __restrict__ in,
                                          unsigned* __restrict__ out,
                                          unsigned* __restrict__ block_totals, int n) {
  __shared__ unsigned warp_tot[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nw = (blockDim.x + 31) >> 5;
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * SCAN_ITEMS;

  unsigned item[SCAN_ITEMS];
  unsigned run = 0;
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    item[k] = base + k < n ? in[base + k] : 0u;
    run += item[k];
    item[k] = run;  // thread-local inclusive prefix
  }
  // Warp-level inclusive scan of the per-thread totals.
  unsigned x = run;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    unsigned y = __shfl_up_sync(0xffffffffu, x, o);
    if (lane >= o) x += y;
  }
  if (lane == 31) warp_tot[warp] = x;
  __syncthreads();
  if (warp == 0) {
    unsigned w = lane < nw ? warp_tot[lane] : 0u;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      unsigned y = __shfl_up_sync(0xffffffffu, w, o);
      if (lane >= o) w += y;
    }
    if (lane < nw) warp_tot[lane] = w;  // inclusive scan of warp totals
  }
  __syncthreads();
  const unsigned offset = (x - run) + (warp > 0 ? warp_tot[warp - 1] : 0u);
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; ++k)
    if (base + k < n) out[base + k] = item[k] + offset;
  if (threadIdx.x == 0) block_totals[blockIdx.x] = warp_tot[nw - 1];
}
// 1024 values per block; 999999 values -> 977 blocks.
//@ launch scan_u32_block 977,1,1 256,1,1 0 in:u32:999999 out:u32:999999 out:u32:977 i32:999999

extern "C" __global__ void dot_f64_blocks(const double* __restrict__ x,
                                          const double* __restrict__ y,
                                          double* __restrict__ partial, int n) {
  __shared__ double s[512];
  double v = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v = fma(x[i], y[i], v);
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
// blockDim.x must be a power of two <= 512.
//@ launch dot_f64_blocks 333,1,1 128,1,1 0 in:f64:400009 in:f64:400009 out:f64:333 i32:400009

extern "C" __global__ void tile_rotate_sum(const float* __restrict__ in,
                                           float* __restrict__ out,
                                           int tiles) {
  __shared__ float s[RBLOCK];
  const int t = threadIdx.x;
  const float* base = in + (size_t)blockIdx.x * tiles * RBLOCK;
  float acc = 0.f;
  for (int k = 0; k < tiles; ++k) {
    s[t] = base[k * RBLOCK + t];
    __syncthreads();
    acc += s[(t + k + 1) % RBLOCK];
    __syncthreads();
  }
  out[(size_t)blockIdx.x * RBLOCK + t] = acc;
}
// blockDim.x must be RBLOCK; 300 blocks of 16 tiles.
//@ launch tile_rotate_sum 300,1,1 256,1,1 0 in:f32:1228800 out:f32:76800 i32:16
