// Baton test corpus: the messy parts of real kernels.
//
//  * median3x3_local_array: per-thread window in a local array sorted with a
//    data-dependent insertion sort, so the array lives on the stack (local
//    memory, .local / %SP / %SPL in the PTX).
//  * nibble_histogram_local: per-thread counters in a local array indexed by
//    data; also a stack user.
//  * printf_block_summary: device printf (vprintf, a .local argument buffer);
//    block (0,0,0) thread 0 prints one line per launch, including gridDim.x,
//    so a block-virtualising rewrite must print the same line exactly once.
//  * gather_assert: device assert (__assertfail) on a condition that holds
//    for all inputs.
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

#include <cassert>
#include <cstdio>

extern "C" __global__ void median3x3_local_array(const float* __restrict__ in,
                                                 float* __restrict__ out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float win[9];
  int cnt = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = min(max(x + dx, 0), w - 1);
      const int yy = min(max(y + dy, 0), h - 1);
      const float v = in[(size_t)yy * w + xx];
      int j = cnt++;
      while (j > 0 && win[j - 1] > v) {  // insertion sort, dynamic indices
        win[j] = win[j - 1];
        --j;
      }
      win[j] = v;
    }
  out[(size_t)y * w + x] = win[4];
}
// 640 x 481 image, 32x8 blocks -> 20 x 61 blocks.
//@ launch median3x3_local_array 20,61,1 32,8,1 0 in:f32:307840 out:f32:307840 i32:640 i32:481

#define WORDS_PER_THREAD 8
extern "C" __global__ void nibble_histogram_local(const unsigned* __restrict__ in,
                                                  unsigned* __restrict__ out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int begin = t * WORDS_PER_THREAD;
  if (begin >= n) return;
  const int end = min(begin + WORDS_PER_THREAD, n);
  unsigned cnt[16] = {0};
  for (int i = begin; i < end; ++i) {
    unsigned w = in[i];
    for (int k = 0; k < 8; ++k, w >>= 4) cnt[w & 15u] += 1;
  }
  for (int b = 0; b < 16; ++b) out[(size_t)t * 16 + b] = cnt[b];
}
// 400003 words -> 50001 threads -> 391 blocks of 128.
//@ launch nibble_histogram_local 391,1,1 128,1,1 0 in:u32:400003 out:u32:800016 i32:400003

extern "C" __global__ void printf_block_summary(const float* __restrict__ in,
                                                float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0 && threadIdx.x == 0)
    printf("printf_block_summary: n=%d grid=%u block=%u\n", n, gridDim.x, blockDim.x);
  if (i < n) {
    const float v = in[i];
    if (!isfinite(v)) printf("printf_block_summary: non-finite input at %d (block %u)\n", i, blockIdx.x);
    out[i] = 2.f * v + 1.f;
  }
}
//@ launch printf_block_summary 782,1,1 128,1,1 0 in:f32:100003 out:f32:100003 i32:100003

extern "C" __global__ void gather_assert(const float* __restrict__ src,
                                         const int* __restrict__ idx,
                                         float* __restrict__ dst, int n, int m) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  assert(m > 0);
  const unsigned j = (unsigned)idx[i] % (unsigned)m;
  assert(j < (unsigned)m);
  dst[i] = src[j];
}
//@ launch gather_assert 1563,1,1 128,1,1 0 in:f32:5000 in:i32:200003 out:f32:200003 i32:200003 i32:5000
