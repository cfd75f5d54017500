// A custom op as a framework extension would ship it: a fused
// linear + bias + GELU layer followed by a row layer-norm, written with
// <<<...>>> launches. Nothing in it knows about Baton; built with the Baton
// plugin its kernels get variants and its launches go to the scheduler.
#include "custom_op.h"

namespace {

constexpr int Tile = 16;

// C[m][n] = sum_k A[m][k] * W[k][n] + bias[n], then GELU (tanh form).
// Shared-memory tiles and barriers; edge blocks exit threads early.
__global__ void linear_bias_gelu(const float *A, const float *W,
                                 const float *Bias, float *Out, int M, int N,
                                 int K) {
  __shared__ float As[Tile][Tile + 1];
  __shared__ float Ws[Tile][Tile + 1];
  int Row = blockIdx.y * Tile + threadIdx.y;
  int Col = blockIdx.x * Tile + threadIdx.x;
  float Acc = 0.f;
  for (int K0 = 0; K0 < K; K0 += Tile) {
    As[threadIdx.y][threadIdx.x] =
        Row < M && K0 + threadIdx.x < K ? A[Row * K + K0 + threadIdx.x] : 0.f;
    Ws[threadIdx.y][threadIdx.x] =
        K0 + threadIdx.y < K && Col < N ? W[(K0 + threadIdx.y) * N + Col] : 0.f;
    __syncthreads();
    for (int I = 0; I < Tile; ++I)
      Acc = fmaf(As[threadIdx.y][I], Ws[I][threadIdx.x], Acc);
    __syncthreads();
  }
  if (Row >= M || Col >= N)
    return;
  float X = Acc + Bias[Col];
  float Inner = 0.7978845608f * (X + 0.044715f * X * X * X);
  Out[Row * N + Col] = 0.5f * X * (1.f + tanhf(Inner));
}

// One block per row: mean and variance by a shared-memory tree reduction.
__global__ void layer_norm_rows(const float *In, const float *Gamma,
                                const float *Beta, float *Out, int Rows,
                                int Cols) {
  extern __shared__ float Partial[];
  int Row = blockIdx.x + gridDim.x * blockIdx.y;
  if (Row >= Rows)
    return; // the whole block leaves: no barrier is left waiting
  const float *X = In + size_t(Row) * Cols;
  float Sum = 0.f, Squares = 0.f;
  for (int C = threadIdx.x; C < Cols; C += blockDim.x) {
    Sum += X[C];
    Squares += X[C] * X[C];
  }
  Partial[threadIdx.x] = Sum;
  Partial[blockDim.x + threadIdx.x] = Squares;
  __syncthreads();
  for (int Half = blockDim.x / 2; Half > 0; Half /= 2) {
    if (threadIdx.x < Half) {
      Partial[threadIdx.x] += Partial[threadIdx.x + Half];
      Partial[blockDim.x + threadIdx.x] +=
          Partial[blockDim.x + threadIdx.x + Half];
    }
    __syncthreads();
  }
  float Mean = Partial[0] / Cols;
  float Var = Partial[blockDim.x] / Cols - Mean * Mean;
  float Scale = rsqrtf(Var + 1e-5f);
  for (int C = threadIdx.x; C < Cols; C += blockDim.x)
    Out[size_t(Row) * Cols + C] = (X[C] - Mean) * Scale * Gamma[C] + Beta[C];
}

} // namespace

void customLinearGeluNorm(const CustomOpBuffers &B, int M, int N, int K,
                          cudaStream_t Stream) {
  dim3 Block(Tile, Tile);
  dim3 Grid((N + Tile - 1) / Tile, (M + Tile - 1) / Tile);
  linear_bias_gelu<<<Grid, Block, 0, Stream>>>(B.A, B.W, B.Bias, B.Hidden, M,
                                               N, K);
  constexpr int Threads = 128;
  // A 2-D grid of rows, so the virtual block index is decoded in y too.
  dim3 Rows(64, (M + 63) / 64);
  layer_norm_rows<<<Rows, Threads, 2 * Threads * sizeof(float), Stream>>>(
      B.Hidden, B.Gamma, B.Beta, B.Out, M, N);
}
