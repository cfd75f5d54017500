// Prototype: where does a PTB worker's per-block cost come from?
// vector_add (128 threads, 1024 floats per block, 2 x float4 per thread):
//   orig      hardware blocks
//   bar       persistent workers, leader claims up to C blocks, one
//             barrier per virtual block (what Baton emits today)
//   nobar     same claims, broadcast once per claim; threads run the
//             claim's blocks with no barrier between them
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

constexpr int T = 128, PER = 1024;

__device__ int gN;
#ifdef SCALAR
// Triton's vector_add: 8 scalar predicated loads per thread and operand.
__device__ __forceinline__ void body(const float4 *a4, const float4 *b4, float4 *c4, unsigned v) {
  const float *a = (const float *)a4, *b = (const float *)b4; float *c = (float *)c4;
  int base = int(v) * PER + int((threadIdx.x * 4) & 508);
  int n = gN;
  #pragma unroll
  for (int h = 0; h < 2; ++h)
    #pragma unroll
    for (int j = 0; j < 4; ++j) {
      int i = base + h * 512 + j;
      if (i < n) c[i] = a[i] + b[i];
    }
}
#else
__device__ __forceinline__ void body(const float4 *a, const float4 *b, float4 *c, unsigned v) {
  unsigned base = v * (PER / 4);
  #pragma unroll
  for (int k = 0; k < 2; ++k) {
    unsigned i = base + threadIdx.x + k * T;
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}
#endif

__global__ void orig(const float4 *a, const float4 *b, float4 *c) { body(a, b, c, blockIdx.x); }

__global__ void bar(const float4 *a, const float4 *b, float4 *c, unsigned *next, unsigned end, unsigned chunk) {
  __shared__ unsigned slot[2];
  unsigned cur = 0, lim = 0, p = 0;
  unsigned share = 2 * gridDim.x;
  if (threadIdx.x == 0) {
    unsigned size = max(1u, min(chunk, (end) / share));
    cur = atomicAdd(next, size); lim = cur + size;
    slot[0] = cur;
  }
  __syncthreads();
  for (;;) {
    unsigned v = slot[p];
    if (v >= end) break;
    p ^= 1;
    body(a, b, c, v);
    if (threadIdx.x == 0) {
      unsigned nv = cur + 1;
      if (nv >= lim) {
        unsigned size = max(1u, min(chunk, (end - nv) / share));
        nv = atomicAdd(next, size); lim = nv + size;
      }
      cur = nv; slot[p] = nv;
    }
    __syncthreads();
  }
}

__global__ void nobar(const float4 *a, const float4 *b, float4 *c, unsigned *next, unsigned end, unsigned chunk) {
  __shared__ unsigned slot[2][2];
  unsigned p = 0;
  unsigned share = 2 * gridDim.x;
  if (threadIdx.x == 0) {
    unsigned size = max(1u, min(chunk, end / share));
    unsigned s = atomicAdd(next, size);
    slot[0][0] = s; slot[0][1] = s + size;
  }
  __syncthreads();
  for (;;) {
    unsigned cur = slot[p][0], lim = slot[p][1];
    if (cur >= end) break;
    p ^= 1;
    for (; cur < lim && cur < end; ++cur)
      body(a, b, c, cur);
    if (threadIdx.x == 0) {
      unsigned size = max(1u, min(chunk, (end - min(end, lim)) / share));
      unsigned s = atomicAdd(next, size);
      slot[p][0] = s; slot[p][1] = s + size;
    }
    __syncthreads();
  }
}

int main() {
  const unsigned blocks = 73243;
  size_t n4 = size_t(blocks) * PER / 4;
  float4 *a, *b, *c; unsigned *next;
  cudaMalloc(&a, n4 * 16); cudaMalloc(&b, n4 * 16); cudaMalloc(&c, n4 * 16);
  cudaMalloc(&next, 4);
  cudaMemset(a, 0, n4 * 16); cudaMemset(b, 0, n4 * 16);
  int nTotal = int(n4 * 4);
  cudaMemcpyToSymbol(gN, &nTotal, sizeof nTotal);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int perBar, perNobar;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perBar, bar, T, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perNobar, nobar, T, 0);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](auto launch) {
    std::vector<float> ts;
    for (int r = 0; r < 24; ++r) {
      cudaMemsetAsync(next, 0, 4);
      cudaEventRecord(e0); launch(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 3) ts.push_back(ms * 1000);
    }
    std::sort(ts.begin(), ts.end()); return ts[ts.size() / 2];
  };
  double o = time([&] { orig<<<blocks, T>>>(a, b, c); });
  printf("sms %d, workers/SM bar %d nobar %d; orig %.1f us\n", sms, perBar, perNobar, o);
  for (unsigned chunk : {1u, 2u, 4u, 8u, 32u}) {
    double tb = time([&] { bar<<<perBar * sms, T>>>(a, b, c, next, blocks, chunk); });
    double tn = time([&] { nobar<<<perNobar * sms, T>>>(a, b, c, next, blocks, chunk); });
    printf("chunk %2u: bar %.3fx  nobar %.3fx\n", chunk, tb / o, tn / o);
  }
  // Workers: half and double the resident count, nobar chunk 8.
  for (int f : {8, 24, 32}) {
    double tn = time([&] { nobar<<<f * sms, T>>>(a, b, c, next, blocks, 8); });
    printf("nobar chunk 8, %d workers/SM: %.3fx\n", f, tn / o);
  }
  cudaError_t err = cudaDeviceSynchronize();
  printf("status %s\n", cudaGetErrorString(err));
}
