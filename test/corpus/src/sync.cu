// Baton test corpus: barrier flavours and early exit.
//
//  * count_above_syncthreads_count: __syncthreads_count (bar.red.popc).
//  * block_flags_syncthreads_or_and: __syncthreads_or / __syncthreads_and
//    (bar.red.or / bar.red.and).
//  * named_barrier_producer_consumer: warp-specialised block using named
//    barriers from inline asm: the two producer warps sync among themselves
//    with `bar.sync 1, 64;` and signal the consumer warps with
//    `bar.arrive 2, 128;`, which the consumers wait on with `bar.sync 2, 128;`.
//    Must be launched with exactly 128 threads.
//  * adjacent_diff_exit_asm: tail threads leave through an inline-asm `exit;`
//    BEFORE a __syncthreads() that the remaining threads still execute.
//  * named_barrier_operands: named_barrier_producer_consumer with each
//    barrier's id and thread count as asm operands, as CUTLASS writes them
//    (`bar.sync %0, %1;` :: "n"(id), "r"(count)); the counts are run-time
//    values (from blockDim.x).
//  * adjacent_diff_sync_operand: tail threads return before a full-CTA
//    `bar.sync %0;` :: "n"(0) that the remaining threads still execute.
//  * count_then_exit: __syncthreads_count that every thread reaches, then
//    tail threads return before a __syncthreads(): baton-ptx's PTB variant
//    keeps the reduction barrier and drains the later one.
//  * count_votes_exact: __syncthreads_count with no branch before it (the
//    grid covers the input exactly): the clang plugin's PTB variant keeps
//    the reduction too.
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

#include <math.h>

extern "C" __global__ void count_above_syncthreads_count(const float* __restrict__ x,
                                                         float threshold,
                                                         int* __restrict__ block_counts,
                                                         int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int pred = i < n && x[i] > threshold;
  const int count = __syncthreads_count(pred);
  if (threadIdx.x == 0) block_counts[blockIdx.x] = count;
}
//@ launch count_above_syncthreads_count 1954,1,1 256,1,1 0 in:f32:500001 f32:0.25 out:i32:1954 i32:500001

extern "C" __global__ void count_then_exit(const float* __restrict__ x,
                                           float threshold,
                                           int* __restrict__ block_counts,
                                           float* __restrict__ out, int n) {
  __shared__ float first;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = i < n ? x[i] : 0.f;
  const int count = __syncthreads_count(v > threshold);
  if (threadIdx.x == 0) {
    block_counts[blockIdx.x] = count;
    first = v;
  }
  if (i >= n) return;
  __syncthreads();
  out[i] = v - first + float(count);
}
//@ launch count_then_exit 1954,1,1 256,1,1 0 in:f32:500001 f32:0.25 out:i32:1954 out:f32:500001 i32:500001

extern "C" __global__ void count_votes_exact(const float* __restrict__ x,
                                             float threshold,
                                             int* __restrict__ block_counts) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int count = __syncthreads_count(x[i] > threshold);
  if (threadIdx.x == 0) block_counts[blockIdx.x] = count;
}
//@ launch count_votes_exact 1953,1,1 256,1,1 0 in:f32:499968 f32:0.25 out:i32:1953

extern "C" __global__ void block_flags_syncthreads_or_and(const float* __restrict__ x,
                                                          float lo, float hi,
                                                          int* __restrict__ any_outside,
                                                          int* __restrict__ all_positive,
                                                          int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = i < n;
  const float v = live ? x[i] : 0.5f * (lo + hi);
  const int outside = __syncthreads_or(live && (v < lo || v > hi));
  const int positive = __syncthreads_and(!live || v > 0.f);
  if (threadIdx.x == 0) {
    any_outside[blockIdx.x] = outside;
    all_positive[blockIdx.x] = positive;
  }
}
// 96-thread blocks (three warps).
//@ launch block_flags_syncthreads_or_and 2084,1,1 96,1,1 0 in:f32:200003 f32:-0.9 f32:0.9 out:i32:2084 out:i32:2084 i32:200003

#define PC_TILE 256
extern "C" __global__ void named_barrier_producer_consumer(const float* __restrict__ in,
                                                           float* __restrict__ out, int n) {
  __shared__ float tile[PC_TILE];
  __shared__ float partial[64];
  __shared__ float tile_max;
  const int tid = threadIdx.x;
  const int base = blockIdx.x * PC_TILE;
  if (tid < 64) {
    // Producers (warps 0-1): stage the tile and compute its maximum.
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < PC_TILE / 64; ++k) {
      const int j = tid + 64 * k;
      const float v = base + j < n ? in[base + j] : -INFINITY;
      tile[j] = v;
      m = fmaxf(m, v);
    }
    partial[tid] = m;
    asm volatile("bar.sync 1, 64;" ::: "memory");  // producers only
    if (tid < 32) {
      m = fmaxf(partial[tid], partial[tid + 32]);
      for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
      if (tid == 0) tile_max = m;
    }
    asm volatile("bar.arrive 2, 128;" ::: "memory");  // tile and tile_max are ready
  } else {
    // Consumers (warps 2-3): wait for the producers, then normalise.
    asm volatile("bar.sync 2, 128;" ::: "memory");
    const float m = tile_max;
#pragma unroll
    for (int k = 0; k < PC_TILE / 64; ++k) {
      const int j = (tid - 64) + 64 * k;
      if (base + j < n) out[base + j] = __expf(tile[j] - m);
    }
  }
}
//@ launch named_barrier_producer_consumer 1172,1,1 128,1,1 0 in:f32:300001 out:f32:300001 i32:300001

extern "C" __global__ void adjacent_diff_exit_asm(const float* __restrict__ in,
                                                  float* __restrict__ out, int n) {
  __shared__ float s[1024];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) asm volatile("exit;");
  s[threadIdx.x] = in[i];
  __syncthreads();
  const float prev = threadIdx.x > 0 ? s[threadIdx.x - 1] : (i > 0 ? in[i - 1] : 0.f);
  out[i] = s[threadIdx.x] - prev;
}
//@ launch adjacent_diff_exit_asm 1563,1,1 320,1,1 0 in:f32:500001 out:f32:500001 i32:500001

extern "C" __global__ void named_barrier_operands(const float* __restrict__ in,
                                                  float* __restrict__ out, int n) {
  __shared__ float tile[PC_TILE];
  __shared__ float partial[64];
  __shared__ float tile_max;
  const int tid = threadIdx.x;
  const unsigned all = blockDim.x, producers = blockDim.x / 2;
  const int base = blockIdx.x * PC_TILE;
  if (tid < 64) {
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < PC_TILE / 64; ++k) {
      const int j = tid + 64 * k;
      const float v = base + j < n ? in[base + j] : -INFINITY;
      tile[j] = v;
      m = fmaxf(m, v);
    }
    partial[tid] = m;
    asm volatile("bar.sync %0, %1;" :: "n"(1), "r"(producers) : "memory");
    if (tid < 32) {
      m = fmaxf(partial[tid], partial[tid + 32]);
      for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
      if (tid == 0) tile_max = m;
    }
    asm volatile("bar.arrive %0, %1;" :: "n"(2), "r"(all) : "memory");
  } else {
    asm volatile("bar.sync %0, %1;" :: "n"(2), "r"(all) : "memory");
    const float m = tile_max;
#pragma unroll
    for (int k = 0; k < PC_TILE / 64; ++k) {
      const int j = (tid - 64) + 64 * k;
      if (base + j < n) out[base + j] = __expf(tile[j] - m);
    }
  }
}
//@ launch named_barrier_operands 1172,1,1 128,1,1 0 in:f32:300001 out:f32:300001 i32:300001

extern "C" __global__ void adjacent_diff_sync_operand(const float* __restrict__ in,
                                                      float* __restrict__ out, int n) {
  __shared__ float s[1024];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = in[i];
  asm volatile("bar.sync %0;" :: "n"(0) : "memory");
  const float prev = threadIdx.x > 0 ? s[threadIdx.x - 1] : (i > 0 ? in[i - 1] : 0.f);
  out[i] = s[threadIdx.x] - prev;
}
//@ launch adjacent_diff_sync_operand 1563,1,1 320,1,1 0 in:f32:500001 out:f32:500001 i32:500001
