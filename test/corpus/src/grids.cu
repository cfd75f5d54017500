// Baton test corpus: 2-D and 3-D grids, and block indices read out of line.
//
// What this file exercises in a block-virtualising rewriter:
//  * blockIdx.y / blockIdx.z and gridDim.x/y/z in kernel bodies, with grid
//    extents that are not powers of two;
//  * a 3-D grid-stride loop, whose trip counts depend on gridDim.*;
//  * %ctaid/%nctaid reads inside __noinline__ device functions: one function
//    (linear_block_index) is called from two different kernels, and one
//    (morton_step) is reached through mutual recursion with another noinline
//    function, so the call graph has a cycle and the reads sit at every level
//    (its PTB variant is refused for the recursion: docs/refusals.md).
// A correct rewrite must make every one of those reads return the *virtual*
// block's coordinates in the original grid.
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

#include <cstdint>

// c = a + b on a height x width matrix, one thread per element, 2-D grid.
extern "C" __global__ void add_2d(const float* __restrict__ a,
                                  const float* __restrict__ b,
                                  float* __restrict__ c, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    size_t k = (size_t)y * width + x;
    c[k] = a[k] + b[k];
  }
}
//@ launch add_2d 32,98,1 32,8,1 0 in:f32:777000 in:f32:777000 out:f32:777000 i32:1000 i32:777

// 7-point Jacobi stencil on an nx x ny x nz volume; boundary cells are copied.
extern "C" __global__ void stencil_3d_7pt(const float* __restrict__ in,
                                          float* __restrict__ out, int nx,
                                          int ny, int nz, float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  size_t sy = nx, sz = (size_t)nx * ny;
  size_t k = z * sz + y * sy + x;
  if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
    out[k] = in[k];
    return;
  }
  float nb = in[k - 1] + in[k + 1] + in[k - sy] + in[k + sy] + in[k - sz] + in[k + sz];
  out[k] = c0 * in[k] + c1 * nb;
}
// 100 x 90 x 70 cells, 16x8x4 blocks -> 7 x 12 x 18 = 1512 blocks.
//@ launch stencil_3d_7pt 7,12,18 16,8,4 0 in:f32:630000 out:f32:630000 i32:100 i32:90 i32:70 f32:0.4 f32:0.1

// Fill an nx x ny x nz volume with a hash of the coordinates using a 3-D
// grid-stride loop: all three gridDim components bound the loops.
extern "C" __global__ void fill_hash_3d_gridstride(unsigned* __restrict__ out,
                                                   int nx, int ny, int nz,
                                                   unsigned salt) {
  for (int z = blockIdx.z * blockDim.z + threadIdx.z; z < nz; z += blockDim.z * gridDim.z)
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < ny; y += blockDim.y * gridDim.y)
      for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < nx; x += blockDim.x * gridDim.x) {
        unsigned h = salt ^ (unsigned)x * 0x9E3779B1u ^ (unsigned)y * 0x85EBCA77u ^
                     (unsigned)z * 0xC2B2AE3Du;
        h ^= h >> 15;
        h *= 0x2C1B3C6Du;
        h ^= h >> 12;
        out[((size_t)z * ny + y) * nx + x] = h;
      }
}
// 333 x 65 x 29 cells on a 10 x 6 x 7 grid of 32x4x2 blocks.
//@ launch fill_hash_3d_gridstride 10,6,7 32,4,2 0 out:u32:627705 i32:333 i32:65 i32:29 u32:2654435761

// ---------------------------------------------------------------------------
// Block indices read in out-of-line device functions.

// Linear index of this block in its grid, x fastest. Shared by two kernels.
extern "C" __device__ __noinline__ unsigned linear_block_index() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

// Each block of a 3-D grid sums its own segment of seg_len values; the
// segment is chosen by the linear block index computed out of line.
extern "C" __global__ void segment_sum_3d(const float* __restrict__ in,
                                          float* __restrict__ sums, int seg_len) {
  __shared__ float warp_sums[32];
  const unsigned blk = linear_block_index();
  const float* seg = in + (size_t)blk * seg_len;
  float v = 0.f;
  for (int i = threadIdx.x; i < seg_len; i += blockDim.x) v += seg[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    int nw = (blockDim.x + 31) >> 5;
    v = threadIdx.x < nw ? warp_sums[threadIdx.x] : 0.f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) sums[blk] = v;
  }
}
// 13 x 7 x 5 = 455 blocks, 300 values each.
//@ launch segment_sum_3d 13,7,5 128,1,1 0 in:f32:136500 out:f32:455 i32:300

// Row-block scaling on a 2-D grid: blocks along y own row panels, blocks
// along x own column panels; every block also records which linear block it
// was, which a test can compare against its (x, y) position.
extern "C" __global__ void scale_panels_2d(const float* __restrict__ in,
                                           float* __restrict__ out,
                                           unsigned* __restrict__ block_ids,
                                           int rows, int cols, float s) {
  const unsigned blk = linear_block_index();
  if (threadIdx.x == 0 && threadIdx.y == 0) block_ids[blk] = blk * 65536u + blockIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)r * cols + c] = s * in[(size_t)r * cols + c] + (float)blk;
}
// 500 x 300 matrix, 16x16 blocks -> 19 x 32 = 608 blocks.
//@ launch scale_panels_2d 19,32,1 16,16,1 0 in:f32:150000 out:f32:150000 out:u32:608 i32:500 i32:300 f32:0.5

// Morton (Z-order) code of (blockIdx.x, blockIdx.y), computed one bit pair
// per level through two mutually recursive noinline functions. Each level
// reads the block index again, so the reads sit inside the recursion.
extern "C" __device__ __noinline__ unsigned morton_interleave(int bit, int bits);

extern "C" __device__ __noinline__ unsigned morton_step(int bit, int bits) {
  unsigned bx = (blockIdx.x >> bit) & 1u;
  unsigned by = (blockIdx.y >> bit) & 1u;
  return ((by << 1 | bx) << (2 * bit)) | morton_interleave(bit + 1, bits);
}

extern "C" __device__ __noinline__ unsigned morton_interleave(int bit, int bits) {
  return bit < bits ? morton_step(bit, bits) : 0u;
}

// Copy each block's tile to the tile slot given by the block's Morton code
// (a tile reordering used to improve locality of a later pass).
extern "C" __global__ void morton_tile_scatter(const float* __restrict__ in,
                                               float* __restrict__ out,
                                               int tile, int bits) {
  const unsigned src = blockIdx.y * gridDim.x + blockIdx.x;
  const unsigned dst = morton_interleave(0, bits);
  for (int i = threadIdx.x; i < tile; i += blockDim.x)
    out[(size_t)dst * tile + i] = in[(size_t)src * tile + i];
}
// 32 x 24 blocks; Morton codes of 5-bit coordinates address 1024 tiles.
//@ launch morton_tile_scatter 32,24,1 64,1,1 0 in:f32:49152 out:f32:65536 i32:64 i32:5
