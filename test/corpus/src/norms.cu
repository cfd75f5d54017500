// Baton test corpus: row-wise normalisations (the inner loops of attention
// and transformer blocks).
//
//  * softmax_rows_f32: one block per row, two block-wide reductions (max,
//    sum) through warp shuffles and a shared scratch, guarded by a
//    block-uniform `if (row >= rows) return;`.
//  * layernorm_fwd_f32: one block per row, two-pass mean/variance, writes
//    y plus per-row mean and rstd (what the backward pass needs).
//  * rmsnorm_bf16: one warp per row, bf16 in/out, fp32 accumulation; warps
//    past the last row return early (no barriers in this kernel).
//  * log_softmax_warp_f16: one warp per row, fp16 in, fp32 out, row cached in
//    registers (fixed maximum row length).
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Block-wide reductions; red[0..31] holds per-warp values, red[32] the result.
__device__ __forceinline__ float block_sum(float v, float* red) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_sum(v);
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_sum(lane < (int)((blockDim.x + 31) >> 5) ? red[lane] : 0.f);
    if (lane == 0) red[32] = v;
  }
  __syncthreads();
  return red[32];
}
__device__ __forceinline__ float block_max(float v, float* red) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_max(v);
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_max(lane < (int)((blockDim.x + 31) >> 5) ? red[lane] : -INFINITY);
    if (lane == 0) red[32] = v;
  }
  __syncthreads();
  return red[32];
}

extern "C" __global__ void softmax_rows_f32(const float* __restrict__ in,
                                            float* __restrict__ out, int rows,
                                            int cols) {
  __shared__ float red[33];
  const int row = blockIdx.x;
  if (row >= rows) return;  // block-uniform
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  m = block_max(m, red);
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(x[c] - m);
  s = block_sum(s, red);
  const float inv = 1.f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = __expf(x[c] - m) * inv;
}
// Grid has 1503 blocks for 1500 rows: three blocks take the early return.
//@ launch softmax_rows_f32 1503,1,1 256,1,1 0 in:f32:1500000 out:f32:1500000 i32:1500 i32:1000

extern "C" __global__ void layernorm_fwd_f32(const float* __restrict__ x,
                                             const float* __restrict__ gamma,
                                             const float* __restrict__ beta,
                                             float* __restrict__ y,
                                             float* __restrict__ mean_out,
                                             float* __restrict__ rstd_out, int rows,
                                             int cols, float eps) {
  __shared__ float red[33];
  const int row = blockIdx.x;
  const float* xr = x + (size_t)row * cols;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
  const float mean = block_sum(s, red) / cols;
  float q = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float d = xr[c] - mean;
    q = fmaf(d, d, q);
  }
  const float rstd = rsqrtf(block_sum(q, red) / cols + eps);
  float* yr = y + (size_t)row * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
  if (threadIdx.x == 0) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
}
//@ launch layernorm_fwd_f32 1200,1,1 128,1,1 0 in:f32:1200000 in:f32:1000 in:f32:1000 out:f32:1200000 out:f32:1200 out:f32:1200 i32:1200 i32:1000 f32:1e-5

extern "C" __global__ void rmsnorm_bf16(const __nv_bfloat16* __restrict__ x,
                                        const __nv_bfloat16* __restrict__ w,
                                        __nv_bfloat16* __restrict__ y, int rows,
                                        int cols, float eps) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (row >= rows) return;  // warp-uniform, no barrier follows
  const __nv_bfloat16* xr = x + (size_t)row * cols;
  float ss = 0.f;
  for (int c = lane; c < cols; c += 32) {
    float v = __bfloat162float(xr[c]);
    ss = fmaf(v, v, ss);
  }
  const float r = rsqrtf(warp_sum(ss) / cols + eps);
  __nv_bfloat16* yr = y + (size_t)row * cols;
  for (int c = lane; c < cols; c += 32)
    yr[c] = __float2bfloat16(__bfloat162float(xr[c]) * r * __bfloat162float(w[c]));
}
// 2001 rows x 515 cols, 4 rows per block -> 501 blocks.
//@ launch rmsnorm_bf16 501,1,1 128,1,1 0 in:bf16:1030515 in:bf16:515 out:bf16:1030515 i32:2001 i32:515 f32:1e-6

#define LSM_MAX_PER_LANE 8  // rows up to 256 columns
extern "C" __global__ void log_softmax_warp_f16(const __half* __restrict__ in,
                                                float* __restrict__ out, int rows,
                                                int cols) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (row >= rows) return;
  const __half* x = in + (size_t)row * cols;
  float v[LSM_MAX_PER_LANE];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < LSM_MAX_PER_LANE; ++k) {
    int c = lane + 32 * k;
    v[k] = c < cols ? __half2float(x[c]) : -INFINITY;
    m = fmaxf(m, v[k]);
  }
  m = warp_max(m);
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < LSM_MAX_PER_LANE; ++k) s += lane + 32 * k < cols ? __expf(v[k] - m) : 0.f;
  const float lse = m + __logf(warp_sum(s));
#pragma unroll
  for (int k = 0; k < LSM_MAX_PER_LANE; ++k) {
    int c = lane + 32 * k;
    if (c < cols) out[(size_t)row * cols + c] = v[k] - lse;
  }
}
// 3000 rows x 200 cols, 8 rows per block -> 375 blocks.
//@ launch log_softmax_warp_f16 375,1,1 256,1,1 0 in:f16:600000 out:f32:600000 i32:3000 i32:200
