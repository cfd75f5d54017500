//===- mlp_kernels.cuh - The training benches' shared kernels -*- CUDA -*-===//
//
// The pieces of a multilayer perceptron that both training libraries of the
// benchmarks use: the tiled matrix product behind every linear layer, the
// bias add before the activation, the bias gradient (column_sum) and a
// block's sum. bench/colocation/train_mlp.cu is compiled by clang with the
// Baton plugin, bench/preload/trainkernels.cu by nvcc; this file compiles
// under both, and each includes it by a path relative to itself (nvcc runs
// there with no -I of ours).
//
// Everything here sits in an unnamed namespace on purpose: each library gets
// its own copy, and column_sum keeps the mangled name it had when it was
// written in each file. Baton names a kernel's variants after that name, and
// the preload bench's catalogue of recompiled kernels lists them by it.
//
// Every reduction runs in a fixed order (no floating-point atomics), so the
// results are bitwise the same however the launches are scheduled.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>

namespace {

constexpr int Tile = 16;

// Element (Row, Col) of op(A) op(B), op(A) of size M x K and op(B) K x N,
// summed over k in [KBegin, K): A is read at A[r * RowA + k * ColA] and B at
// B[k * RowB + c * ColB], so one loop serves A B, A^T B and A B^T. A block
// of Tile x Tile threads stages Tile-wide slices of both in shared memory
// (rows padded by one against bank conflicts). Every thread of the block
// calls it, as it waits at barriers, those outside C too.
__device__ inline float tiledDot(const float *A, int RowA, int ColA,
                                 const float *B, int RowB, int ColB, int M,
                                 int N, int K, int Row, int Col,
                                 int KBegin = 0) {
  __shared__ float TileA[Tile][Tile + 1];
  __shared__ float TileB[Tile][Tile + 1];
  float Sum = 0.f;
  for (int K0 = KBegin; K0 < K; K0 += Tile) {
    int KA = K0 + threadIdx.x, KB = K0 + threadIdx.y;
    TileA[threadIdx.y][threadIdx.x] =
        Row < M && KA < K ? A[size_t(Row) * RowA + size_t(KA) * ColA] : 0.f;
    TileB[threadIdx.y][threadIdx.x] =
        KB < K && Col < N ? B[size_t(KB) * RowB + size_t(Col) * ColB] : 0.f;
    __syncthreads();
#pragma unroll
    for (int I = 0; I < Tile; ++I)
      Sum = fmaf(TileA[threadIdx.y][I], TileB[I][threadIdx.x], Sum);
    __syncthreads();
  }
  return Sum;
}

// For this thread's element I of the Rows x Cols row-major matrix Z, calls
// Activate(I, Z[I] + Bias[I % Cols]); a thread past the end does nothing.
template <class Activation>
__device__ inline void addBias(const float *Z, const float *Bias, int Rows,
                               int Cols, Activation Activate) {
  size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (I >= size_t(Rows) * Cols)
    return;
  Activate(I, Z[I] + Bias[I % Cols]);
}

// The sum of S over the block: a tree over Scratch (shared, a slot per
// thread; blockDim.x a power of two). Every thread of the block calls it and
// gets the sum.
__device__ inline float blockSum(float *Scratch, float S) {
  Scratch[threadIdx.x] = S;
  __syncthreads();
  for (int Half = blockDim.x / 2; Half > 0; Half /= 2) {
    if (threadIdx.x < Half)
      Scratch[threadIdx.x] += Scratch[threadIdx.x + Half];
    __syncthreads();
  }
  return Scratch[0];
}

// The bias gradient: Out[c] = sum over r of X[r][c]. A thread per column,
// rows summed in order.
__global__ void column_sum(const float *X, float *Out, int Rows, int Cols) {
  int C = blockIdx.x * blockDim.x + threadIdx.x;
  if (C >= Cols)
    return;
  float S = 0.f;
  for (int R = 0; R < Rows; ++R)
    S += X[size_t(R) * Cols + C];
  Out[C] = S;
}

} // namespace
