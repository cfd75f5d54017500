// Baton test corpus: elementwise kernels.
//
// The bread and butter of every framework: one thread per element with a
// bounds guard, a vectorised variant with a scalar tail, a grid-stride loop
// whose trip count depends on gridDim, double precision and 64-bit integer
// arithmetic. None of them synchronises; each thread writes only its own
// elements, so results are bitwise reproducible under any block order.
//
// Lines starting with "//@ launch" are launch descriptions harvested by
// scripts/build-corpus.sh into test/corpus/manifest.txt:
//   //@ launch KERNEL GX,GY,GZ BX,BY,BZ DYN_SMEM PARAM...
// (see test/corpus/README.md for the parameter kinds).

#include <cstdint>
#include <math.h>

// y = a * x + y. The canonical one-liner, with the canonical guard.
extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x,
                                 float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
//@ launch saxpy 3907,1,1 256,1,1 0 i32:999999 f32:2.5 in:f32:999999 inout:f32:999999

// ReLU with 128-bit loads. Each thread handles four consecutive elements; the
// last thread of the grid handles the 1..3 element tail with scalar code.
extern "C" __global__ void relu_f32_vec4(const float* __restrict__ x,
                                         float* __restrict__ y, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int base = t * 4;
  if (base + 3 < n) {
    float4 v = reinterpret_cast<const float4*>(x)[t];
    v.x = fmaxf(v.x, 0.f);
    v.y = fmaxf(v.y, 0.f);
    v.z = fmaxf(v.z, 0.f);
    v.w = fmaxf(v.w, 0.f);
    reinterpret_cast<float4*>(y)[t] = v;
  } else {
    for (int i = base; i < n; ++i) y[i] = fmaxf(x[i], 0.f);
  }
}
// n = 1000001 -> 250001 threads -> 977 blocks of 256.
//@ launch relu_f32_vec4 977,1,1 256,1,1 0 in:f32:1000001 out:f32:1000001 i32:1000001

// Fused bias + GELU (tanh approximation) over a rows x cols activation, as
// emitted after a linear layer. Grid-stride loop: the grid is sized to the
// machine, not to the problem, so the trip count depends on gridDim.x.
__device__ __forceinline__ float gelu_tanh(float v) {
  const float k0 = 0.7978845608028654f;  // sqrt(2/pi)
  const float k1 = 0.044715f;
  return 0.5f * v * (1.f + tanhf(k0 * (v + k1 * v * v * v)));
}

extern "C" __global__ void bias_gelu_gridstride(const float* __restrict__ x,
                                                const float* __restrict__ bias,
                                                float* __restrict__ y, int rows,
                                                int cols) {
  const long long total = (long long)rows * cols;
  const long long stride = (long long)blockDim.x * gridDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    int c = (int)(i % cols);
    y[i] = gelu_tanh(x[i] + bias[c]);
  }
}
// 1531 x 769 elements, 432 blocks: every thread loops ~10 times.
//@ launch bias_gelu_gridstride 432,1,1 256,1,1 0 in:f32:1177339 in:f32:769 out:f32:1177339 i32:1531 i32:769

// y = a * x + b * y in double precision.
extern "C" __global__ void daxpby_f64(int n, double a, double b,
                                      const double* __restrict__ x,
                                      double* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = fma(a, x[i], b * y[i]);
}
//@ launch daxpby_f64 2344,1,1 128,1,1 0 i32:300007 f64:0.75 f64:-1.25 in:f64:300007 inout:f64:300007

// SplitMix64 finaliser applied to 64-bit keys (hash partitioning of ids):
// 64-bit multiplies, shifts and xors, a 64-bit scalar parameter.
extern "C" __global__ void hash_mix_i64(const long long* __restrict__ in,
                                        long long* __restrict__ out, int n,
                                        unsigned long long seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned long long z = (unsigned long long)in[i] + seed + 0x9E3779B97F4A7C15ull * (unsigned)i;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    out[i] = (long long)(z ^ (z >> 31));
  }
}
// 192-thread blocks: a block size that is not a power of two.
//@ launch hash_mix_i64 1042,1,1 192,1,1 0 in:i64:200003 out:i64:200003 i32:200003 u64:12345678901234567
