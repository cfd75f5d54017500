// Baton test corpus: half and bfloat16 arithmetic (cuda_fp16.h, cuda_bf16.h).
//
// Packed half2 FMAs, bf16x2 native adds (sm_90 has bf16 add/fma in hardware),
// erf-based GELU computed in fp32 and rounded to bf16, and precision casts.
// These produce the .f16/.f16x2/.bf16/.bf16x2 instructions and cvt rounding
// modifiers that a PTX parser must round-trip.
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

// c = a * scale + b, two halves per thread; n must be even.
extern "C" __global__ void hfma2_scale_f16(const __half* __restrict__ a,
                                           const __half* __restrict__ b,
                                           __half* __restrict__ c, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i >= n) return;
  const __half2 s = __float2half2_rn(scale);
  const __half2 va = reinterpret_cast<const __half2*>(a)[i];
  const __half2 vb = reinterpret_cast<const __half2*>(b)[i];
  reinterpret_cast<__half2*>(c)[i] = __hfma2(va, s, vb);
}
// 600002 halves -> 300001 pairs -> 1172 blocks.
//@ launch hfma2_scale_f16 1172,1,1 256,1,1 0 in:f16:600002 in:f16:600002 out:f16:600002 i32:600002 f32:0.375

extern "C" __global__ void gelu_erf_bf16(const __nv_bfloat16* __restrict__ x,
                                         __nv_bfloat16* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = __bfloat162float(x[i]);
    y[i] = __float2bfloat16_rn(0.5f * v * (1.f + erff(v * 0.70710678118654752f)));
  }
}
//@ launch gelu_erf_bf16 3039,1,1 256,1,1 0 in:bf16:777777 out:bf16:777777 i32:777777

// One fp32 input, three roundings out: fp16 (rn), bf16 (rn), bf16 (rz).
extern "C" __global__ void cast_f32_to_f16_bf16(const float* __restrict__ in,
                                                __half* __restrict__ out_h,
                                                __nv_bfloat16* __restrict__ out_b,
                                                __nv_bfloat16* __restrict__ out_bz, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = in[i];
    out_h[i] = __float2half_rn(v);
    out_b[i] = __float2bfloat16_rn(v);
    out_bz[i] = __float2bfloat16_rz(v);
  }
}
//@ launch cast_f32_to_f16_bf16 700,1,1 128,1,1 0 in:f32:500003 out:f16:500003 out:bf16:500003 out:bf16:500003 i32:500003

// y[r, :] = x[r, :] + bias[:] in packed bf16x2; cols must be even. 2-D grid:
// x covers column pairs, y covers rows.
extern "C" __global__ void bias_add_bf16x2(const __nv_bfloat16* __restrict__ x,
                                           const __nv_bfloat16* __restrict__ bias,
                                           __nv_bfloat16* __restrict__ y, int rows,
                                           int cols) {
  const int pair = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y;
  if (row >= rows || 2 * pair >= cols) return;
  const size_t k = ((size_t)row * cols) / 2 + pair;
  const __nv_bfloat162 vx = reinterpret_cast<const __nv_bfloat162*>(x)[k];
  const __nv_bfloat162 vb = reinterpret_cast<const __nv_bfloat162*>(bias)[pair];
  reinterpret_cast<__nv_bfloat162*>(y)[k] = __hadd2(vx, vb);
}
// 1000 rows x 1090 cols: 545 pairs -> 5 blocks of 128 along x, 1000 along y.
//@ launch bias_add_bf16x2 5,1000,1 128,1,1 0 in:bf16:1090000 in:bf16:1090 out:bf16:1090000 i32:1000 i32:1090
