// Baton test corpus: parameters and memory operations that no manifest line
// can describe (transform and ptxas checks only; no "//@ launch" lines).
//
//  * grid_constant_param: a __grid_constant__ struct whose address a
//    non-inlined function takes (the parameter lives in .param space and is
//    reached through a generic pointer).
//  * big_struct_param: a 640-byte, 16-aligned struct by value.
//  * texture_surface: a texture object read (tex.2d) and a surface object
//    written (sust).
//  * cache_hints_fp8: streaming loads and stores (__ldcs, st.global.cs), an L2
//    eviction policy (createpolicy, ld.global.L2::cache_hint), FP8
//    conversions and bf16 atomics.

#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

struct Scales {
  float scale[64];
  int n;
};
__device__ __noinline__ float scale_at(const Scales *s, int i) {
  return s->scale[i & 63];
}
extern "C" __global__ void grid_constant_param(const __grid_constant__ Scales s,
                                               float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n) out[i] = scale_at(&s, i) * i;
}

struct alignas(16) Wide {
  float4 v[40];
};
extern "C" __global__ void big_struct_param(Wide w, float *out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] =
      w.v[threadIdx.x % 40].x + blockIdx.x;
}

extern "C" __global__ void texture_surface(cudaTextureObject_t tex,
                                           cudaSurfaceObject_t surf,
                                           float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);
  surf2Dwrite(v * 2.0f, surf, x * static_cast<int>(sizeof(float)), y);
  out[y * w + x] = v;
}

extern "C" __global__ void cache_hints_fp8(float *out, const float *in,
                                           __nv_bfloat16 *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = __ldcs(in + i) + __ldg(in + (i ^ 1) % n);
  float q = float(__nv_fp8_e4m3(x));
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;"
               : "=l"(policy));
  float hinted;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;"
               : "=f"(hinted)
               : "l"(in + i), "l"(policy));
  asm volatile("st.global.cs.f32 [%0], %1;" ::"l"(out + i), "f"(q + hinted));
  atomicAdd(sums + (i & 15), __float2bfloat16(q));
}
