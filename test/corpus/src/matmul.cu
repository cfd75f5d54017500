// Baton test corpus: dense linear algebra building blocks.
//
//  * sgemm_tiled16: classic shared-memory tiled SGEMM (C = alpha*A*B + beta*C)
//    on a 2-D grid, with M, N, K that are not multiples of the tile.
//  * transpose_padded: 32x33 padded shared tile to avoid bank conflicts,
//    the block's x/y roles swap between load and store.
//  * wmma_gemm_f16_f32: tensor cores through nvcuda::wmma (mma.h), fp16
//    inputs, fp32 accumulation; four warps per block each own a 16x16 tile,
//    warps whose tile falls outside C return early (no barriers follow).
//  * sgemm_cp_async: the tiled SGEMM with a two-stage pipeline of
//    asynchronous copies into shared memory (cuda_pipeline.h: cp.async,
//    commit and wait groups, zero-fill past the edges), Ampere style.
//
// "//@ launch" lines: see elementwise.cu and test/corpus/README.md.

#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

#define TILE 16

extern "C" __global__ void sgemm_tiled16(const float* __restrict__ A,
                                         const float* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K,
                                         float alpha, float beta) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float acc = 0.f;
  for (int t = 0; t < K; t += TILE) {
    As[ty][tx] = (row < M && t + tx < K) ? A[(size_t)row * K + t + tx] : 0.f;
    Bs[ty][tx] = (col < N && t + ty < K) ? B[(size_t)(t + ty) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < M && col < N) {
    size_t k = (size_t)row * N + col;
    C[k] = alpha * acc + beta * C[k];
  }
}
// M=300, N=500, K=129 -> 32 x 19 blocks of 16x16.
//@ launch sgemm_tiled16 32,19,1 16,16,1 0 in:f32:38700 in:f32:64500 inout:f32:150000 i32:300 i32:500 i32:129 f32:1.0 f32:0.5

// Copies one element of each operand's next tile into stage S with cp.async;
// elements past an edge are zero-filled from a valid address.
__device__ void stage_tiles(const float *A, const float *B, float (*As)[TILE],
                            float (*Bs)[TILE], int M, int N, int K, int Row,
                            int Col, int T) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  bool InA = Row < M && T + tx < K, InB = Col < N && T + ty < K;
  __pipeline_memcpy_async(&As[ty][tx], InA ? &A[(size_t)Row * K + T + tx] : A,
                          sizeof(float), InA ? 0 : sizeof(float));
  __pipeline_memcpy_async(&Bs[ty][tx], InB ? &B[(size_t)(T + ty) * N + Col] : B,
                          sizeof(float), InB ? 0 : sizeof(float));
}

extern "C" __global__ void sgemm_cp_async(const float *__restrict__ A,
                                          const float *__restrict__ B,
                                          float *__restrict__ C, int M, int N,
                                          int K) {
  __shared__ float As[2][TILE][TILE];
  __shared__ float Bs[2][TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int Row = blockIdx.y * TILE + ty;
  const int Col = blockIdx.x * TILE + tx;
  float Acc = 0.f;
  stage_tiles(A, B, As[0], Bs[0], M, N, K, Row, Col, 0);
  __pipeline_commit();
  for (int T = 0, S = 0; T < K; T += TILE, S ^= 1) {
    if (T + TILE < K)
      stage_tiles(A, B, As[S ^ 1], Bs[S ^ 1], M, N, K, Row, Col, T + TILE);
    __pipeline_commit();     // an empty group on the last tile
    __pipeline_wait_prior(1); // stage S has landed
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      Acc = fmaf(As[S][ty][k], Bs[S][k][tx], Acc);
    __syncthreads();
  }
  if (Row < M && Col < N)
    C[(size_t)Row * N + Col] = Acc;
}
// M=300, N=500, K=129 -> 32 x 19 blocks of 16x16, 9 tiles of K (the last
// one mostly zero-filled).
//@ launch sgemm_cp_async 32,19,1 16,16,1 0 in:f32:38700 in:f32:64500 out:f32:150000 i32:300 i32:500 i32:129

#define TDIM 32
#define TROWS 8

extern "C" __global__ void transpose_padded(const float* __restrict__ in,
                                            float* __restrict__ out, int rows,
                                            int cols) {
  __shared__ float tile[TDIM][TDIM + 1];
  int x = blockIdx.x * TDIM + threadIdx.x;
  int y = blockIdx.y * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += TROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TDIM + threadIdx.x;
  y = blockIdx.x * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += TROWS)
    if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
// 1000 x 1234 -> 39 x 32 blocks of 32x8.
//@ launch transpose_padded 39,32,1 32,8,1 0 in:f32:1234000 out:f32:1234000 i32:1000 i32:1234

// C[M x N] (fp32, row-major) = A[M x K] (fp16, row-major) * B[K x N] (fp16,
// row-major). M, N, K must be multiples of 16. 128 threads = 2x2 warps.
extern "C" __global__ void wmma_gemm_f16_f32(const __half* __restrict__ A,
                                             const __half* __restrict__ B,
                                             float* __restrict__ C, int M, int N, int K) {
  using namespace nvcuda;
  const int warp = threadIdx.x / 32;
  const int tile_m = (blockIdx.y * 2 + warp / 2) * 16;
  const int tile_n = (blockIdx.x * 2 + warp % 2) * 16;
  if (tile_m >= M || tile_n >= N) return;  // warp-uniform early exit

  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tile_m * K + k, K);
    wmma::load_matrix_sync(b, B + (size_t)k * N + tile_n, N);
    wmma::mma_sync(c, a, b, c);
  }
  wmma::store_matrix_sync(C + (size_t)tile_m * N + tile_n, c, N, wmma::mem_row_major);
}
// M=400 (25 tiles), N=624 (39 tiles), K=160 -> 20 x 13 blocks; the last
// block column and row each have idle warps.
//@ launch wmma_gemm_f16_f32 20,13,1 128,1,1 0 in:f16:64000 in:f16:99840 out:f32:249600 i32:400 i32:624 i32:160
