// Baton test corpus: dynamic shared memory (`extern __shared__`).
//
// The shared footprint of these kernels is only known at launch (the
// DYN_SMEM column of the manifest). A persistent-worker rewrite that adds its
// own shared slot (e.g. to broadcast the virtual block index) must not
// overlap the dynamic window.
//
//  * stencil1d_dyn_smem: 1-D stencil with a halo of `radius` cells staged in
//    a dynamically sized window of blockDim.x + 2*radius floats.
//  * bitonic_sort_kv_dyn_smem: block-local bitonic sort of 2*blockDim.x
//    key/value pairs; one dynamic buffer carved into an int and a float array;
//    log^2 rounds of __syncthreads in nested loops.
//  * matvec_dyn_smem: y = A x with x cached in dynamic shared memory and one
//    warp per row, mixed with a static __shared__ array.
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

#include <climits>

extern "C" __global__ void stencil1d_dyn_smem(const float* __restrict__ in,
                                              float* __restrict__ out, int n, int radius) {
  extern __shared__ float win[];  // blockDim.x + 2 * radius
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int base = blockIdx.x * blockDim.x - radius;
  for (int j = threadIdx.x; j < blockDim.x + 2 * radius; j += blockDim.x) {
    const int g = base + j;
    win[j] = (g >= 0 && g < n) ? in[g] : 0.f;
  }
  __syncthreads();
  if (i < n) {
    float acc = 0.f;
    for (int d = -radius; d <= radius; ++d) acc += win[threadIdx.x + radius + d];
    out[i] = acc / (2 * radius + 1);
  }
}
// radius 5: (256 + 10) * 4 bytes.
//@ launch stencil1d_dyn_smem 3907,1,1 256,1,1 1064 in:f32:1000003 out:f32:1000003 i32:1000003 i32:5

extern "C" __global__ void bitonic_sort_kv_dyn_smem(const int* __restrict__ keys,
                                                    const float* __restrict__ vals,
                                                    int* __restrict__ keys_out,
                                                    float* __restrict__ vals_out, int n) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int N = 2 * blockDim.x;  // power of two
  int* sk = reinterpret_cast<int*>(smem);
  float* sv = reinterpret_cast<float*>(sk + N);
  const int base = blockIdx.x * N;
  for (int t = threadIdx.x; t < N; t += blockDim.x) {
    const bool live = base + t < n;
    sk[t] = live ? keys[base + t] : INT_MAX;
    sv[t] = live ? vals[base + t] : 0.f;
  }
  __syncthreads();
  for (int k = 2; k <= N; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int t = threadIdx.x; t < N; t += blockDim.x) {
        const int p = t ^ j;
        if (p > t) {
          const bool ascending = (t & k) == 0;
          const int a = sk[t], b = sk[p];
          if ((a > b) == ascending && a != b) {
            sk[t] = b;
            sk[p] = a;
            const float v = sv[t];
            sv[t] = sv[p];
            sv[p] = v;
          }
        }
      }
      __syncthreads();
    }
  }
  for (int t = threadIdx.x; t < N; t += blockDim.x)
    if (base + t < n) {
      keys_out[base + t] = sk[t];
      vals_out[base + t] = sv[t];
    }
}
// 512 pairs per block: 512 * (4 + 4) bytes; 300007 pairs -> 586 blocks.
//@ launch bitonic_sort_kv_dyn_smem 586,1,1 256,1,1 4096 in:i32:300007 in:f32:300007 out:i32:300007 out:f32:300007 i32:300007

extern "C" __global__ void matvec_dyn_smem(const float* __restrict__ A,
                                           const float* __restrict__ x,
                                           float* __restrict__ y, int rows, int cols) {
  extern __shared__ float xs[];  // cols floats
  __shared__ float row_sums[32];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) xs[c] = x[c];
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int row = blockIdx.x * (blockDim.x >> 5) + warp;
  float acc = 0.f;
  if (row < rows) {
    const float* a = A + (size_t)row * cols;
    for (int c = lane; c < cols; c += 32) acc = fmaf(a[c], xs[c], acc);
  }
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if (lane == 0) row_sums[warp] = acc;
  __syncthreads();
  if (threadIdx.x < (blockDim.x >> 5)) {
    const int r = blockIdx.x * (blockDim.x >> 5) + threadIdx.x;
    if (r < rows) y[r] = row_sums[threadIdx.x];
  }
}
// 4001 x 1000 matrix, 8 rows per block -> 501 blocks, x cached in 4000 bytes.
//@ launch matvec_dyn_smem 501,1,1 256,1,1 4000 in:f32:4001000 in:f32:1000 out:f32:4001 i32:4001 i32:1000
