// Baton test corpus: histograms and atomics.
//
//  * histogram256_shared: privatised histogram in shared memory (shared
//    atomics), merged into the global histogram with global integer atomics.
//  * histogram256_per_block: same, but every block writes its own 256 bins
//    (no global atomics; the usual first pass of a two-pass histogram).
//  * bincount_warp_aggregated: global atomics with warp aggregation through
//    __match_any_sync, so lanes that hit the same bin issue one atomic.
// All counts are integers, so results are independent of execution order.
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

#include <cstdint>

#define NBINS 256

extern "C" __global__ void histogram256_shared(const unsigned char* __restrict__ data,
                                               int n, unsigned* __restrict__ hist) {
  __shared__ unsigned local[NBINS];
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&hist[b], local[b]);
}
//@ launch histogram256_shared 240,1,1 256,1,1 0 in:u8:3000017 i32:3000017 inout:u32:256

extern "C" __global__ void histogram256_per_block(const unsigned char* __restrict__ data,
                                                  int n, int chunk,
                                                  unsigned* __restrict__ block_hists) {
  __shared__ unsigned local[NBINS];
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const int begin = blockIdx.x * chunk;
  const int end = min(begin + chunk, n);
  // Four bytes per iteration where possible.
  int i = begin + 4 * threadIdx.x;
  for (; i + 3 < end; i += 4 * blockDim.x) {
    atomicAdd(&local[data[i + 0]], 1u);
    atomicAdd(&local[data[i + 1]], 1u);
    atomicAdd(&local[data[i + 2]], 1u);
    atomicAdd(&local[data[i + 3]], 1u);
  }
  for (; i < end; ++i) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
    block_hists[(size_t)blockIdx.x * NBINS + b] = local[b];
}
// 4096-byte chunks; 1000003 bytes -> 245 blocks, the last one partial.
//@ launch histogram256_per_block 245,1,1 128,1,1 0 in:u8:1000003 i32:1000003 i32:4096 out:u32:62720

extern "C" __global__ void bincount_warp_aggregated(const int* __restrict__ keys, int n,
                                                    int nbins,
                                                    unsigned* __restrict__ counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned bin = (unsigned)keys[i] % (unsigned)nbins;
  const unsigned active = __activemask();
  const unsigned peers = __match_any_sync(active, bin);
  const int leader = __ffs(peers) - 1;
  if ((int)(threadIdx.x & 31) == leader) atomicAdd(&counts[bin], (unsigned)__popc(peers));
}
//@ launch bincount_warp_aggregated 1954,1,1 256,1,1 0 in:i32:500001 i32:500001 i32:1000 inout:u32:1000
