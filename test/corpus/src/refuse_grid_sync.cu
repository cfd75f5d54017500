// Baton test corpus: REFUSAL case - grid-wide synchronisation.
//
// cooperative_groups::this_grid().sync() makes every block of the launch wait
// for every other block. Virtual blocks executed in slices or by a pool of
// persistent workers cannot all be resident at once, so any block-virtualised
// variant would deadlock (or, worse, read partial results). A correct tool
// emits no variant for these kernels, names the construct and its line, and
// leaves the module assemblable. (Must be launched with
// cudaLaunchCooperativeKernel; no manifest lines.)

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Two-phase normalisation: block partial sums, grid barrier, every block
// reads all partials and scales its own elements.
extern "C" __global__ void grid_sync_normalize(float* __restrict__ data,
                                               float* __restrict__ partial, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ float s[256];
  float v = 0.f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) v += fabsf(data[i]);
  s[threadIdx.x] = v;
  block.sync();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    block.sync();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  float total = 0.f;
  for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
  const float inv = total > 0.f ? 1.f / total : 0.f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) data[i] *= inv;
}

// Iterative Jacobi sweep with a grid barrier between iterations.
extern "C" __global__ void grid_sync_jacobi(float* __restrict__ a, float* __restrict__ b,
                                            int n, int iters) {
  cg::grid_group grid = cg::this_grid();
  for (int it = 0; it < iters; ++it) {
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
      const float l = i > 0 ? a[i - 1] : a[i];
      const float r = i + 1 < n ? a[i + 1] : a[i];
      b[i] = 0.5f * a[i] + 0.25f * (l + r);
    }
    grid.sync();
    float* t = a;
    a = b;
    b = t;
  }
}
