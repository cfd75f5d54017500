// The best-effort job of the colocation benchmark: a multilayer perceptron
// trained with SGD (forward, backward, optimizer step) in CUDA kernels of
// its own, built with the Baton plugin like any custom op, so that its
// launches go to Baton's scheduler when BATON_SCHEDULE is set and run
// unchanged when it is not. Loaded by colocate.py through ctypes.
//
// C API (all return 0 on success, -1 after printing the CUDA error):
//   int   train_init(int batch, int hidden, int layers, int splits,
//                    unsigned seed);
//   int   train_steps(int steps);  // runs and waits for them
//   float train_loss(void);        // mean squared error of the last forward
//   void  train_shutdown(void);
//
// Every kernel is deterministic (no floating-point atomics), so the loss
// after N steps is bitwise the same however the launches were scheduled.
//
// Splits: a best-effort kernel yields between blocks, so how long its blocks
// run is what latency-critical work waits for. With one split, a product's
// block computes its 16 x 16 tile over the whole inner dimension and the
// bias gradient's block sums all rows of its columns; with S splits, both
// divide that loop into S ranges, each block writes its range's partial sum,
// and sum_splits adds the S partials in order: S times the blocks, each
// about 1/S as long, for a pass over S partial results.
//
// The tiled product, the bias add, column_sum and the block sum come from
// bench/common/mlp_kernels.cuh, shared with bench/preload/trainkernels.cu.
#include "../common/mlp_kernels.cuh"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

// C_z = op(A) op(B) summed over k in [z * KSplit, (z + 1) * KSplit), for z =
// blockIdx.z, into the M x N matrix at C + z * M * N; op(A)(i,k) =
// A[i*sAr + k*sAc] and op(B)(k,j) = B[k*sBr + j*sBc]: strides express the
// transposes.
__global__ void gemm_strided(const float *A, int sAr, int sAc, const float *B,
                             int sBr, int sBc, float *C, int M, int N, int K,
                             int KSplit) {
  int Row = blockIdx.y * Tile + threadIdx.y;
  int Col = blockIdx.x * Tile + threadIdx.x;
  int KBegin = blockIdx.z * KSplit;
  float Acc = tiledDot(A, sAr, sAc, B, sBr, sBc, M, N,
                       min(K, KBegin + KSplit), Row, Col, KBegin);
  if (Row < M && Col < N)
    C[size_t(blockIdx.z) * M * N + size_t(Row) * N + Col] = Acc;
}

// Partial[g * Cols + c] = the sum of X[r][c] over the rows r of group g =
// blockIdx.y, [g * GroupRows, (g + 1) * GroupRows), in order.
__global__ void column_sum_groups(const float *X, float *Partial, int Rows,
                                  int Cols, int GroupRows) {
  int C = blockIdx.x * blockDim.x + threadIdx.x;
  if (C >= Cols)
    return;
  int First = blockIdx.y * GroupRows, Last = min(Rows, First + GroupRows);
  float S = 0.f;
  for (int R = First; R < Last; ++R)
    S += X[size_t(R) * Cols + C];
  Partial[size_t(blockIdx.y) * Cols + C] = S;
}

// Out[i] = the sum of Partial[z * Count + i] over z = 0 .. Splits-1, in order.
__global__ void sum_splits(const float *Partial, float *Out, int Splits,
                           size_t Count) {
  size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (I >= Count)
    return;
  float S = 0.f;
  for (int Z = 0; Z < Splits; ++Z)
    S += Partial[size_t(Z) * Count + I];
  Out[I] = S;
}

__device__ float gelu(float X) {
  return 0.5f * X * (1.f + tanhf(0.7978845608f * (X + 0.044715f * X * X * X)));
}

__device__ float geluDerivative(float X) {
  float U = 0.7978845608f * (X + 0.044715f * X * X * X);
  float T = tanhf(U);
  float Du = 0.7978845608f * (1.f + 3.f * 0.044715f * X * X);
  return 0.5f * (1.f + T) + 0.5f * X * (1.f - T * T) * Du;
}

__global__ void bias_gelu(float *Z, const float *Bias, float *Y, int Rows,
                          int Cols) {
  addBias(Z, Bias, Rows, Cols, [=](size_t I, float V) {
    Z[I] = V;
    Y[I] = gelu(V);
  });
}

__global__ void mse_grad(const float *Y, const float *Target, float *DY,
                         int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    DY[I] = 2.f * (Y[I] - Target[I]) / N;
}

__global__ void gelu_backward(const float *DY, const float *Z, float *DZ,
                              int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    DZ[I] = DY[I] * geluDerivative(Z[I]);
}

__global__ void sgd(float *W, const float *DW, float Lr, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    W[I] -= Lr * DW[I];
}

// One block: strided partial sums, then a tree.
__global__ void mse_loss(const float *Y, const float *Target, float *Out,
                         int N) {
  __shared__ float Partial[1024];
  float S = 0.f;
  for (int I = threadIdx.x; I < N; I += blockDim.x) {
    float D = Y[I] - Target[I];
    S += D * D;
  }
  S = blockSum(Partial, S);
  if (threadIdx.x == 0)
    *Out = S / N;
}

struct Model {
  int Batch = 0, Hidden = 0, Layers = 0, Splits = 1;
  cudaStream_t Stream = nullptr;
  std::vector<float *> W, B, DW, DB, Z, Y; // per layer
  float *Input = nullptr, *Target = nullptr, *DY = nullptr, *DZ = nullptr;
  float *Loss = nullptr;
  float *Partial = nullptr; ///< Splits > 1: the partial sums of one result
};

Model TheModel;

bool ok(cudaError_t E, const char *What) {
  if (E == cudaSuccess)
    return true;
  std::fprintf(stderr, "train_mlp: %s: %s\n", What, cudaGetErrorString(E));
  return false;
}

float *deviceArray(size_t N, unsigned &Seed, float Scale) {
  std::vector<float> Host(N);
  for (float &X : Host) {
    Seed = Seed * 1664525u + 1013904223u;
    X = Scale * (float((Seed >> 8) & 0xFFFF) / 65535.f - 0.5f);
  }
  float *D = nullptr;
  if (!ok(cudaMalloc(&D, N * sizeof(float)), "cudaMalloc") ||
      !ok(cudaMemcpy(D, Host.data(), N * sizeof(float), cudaMemcpyHostToDevice),
          "cudaMemcpy"))
    return nullptr;
  return D;
}

unsigned blocksFor(size_t N, unsigned Threads) {
  return unsigned((N + Threads - 1) / Threads);
}

void sumSplits(const Model &M, float *Out, int Splits, size_t Count) {
  sum_splits<<<blocksFor(Count, 256), 256, 0, M.Stream>>>(M.Partial, Out,
                                                          Splits, Count);
}

// C = op(A) op(B), in M.Splits ranges of whole tiles of K.
void gemm(const Model &M, const float *A, int sAr, int sAc, const float *B,
          int sBr, int sBc, float *C, int Rows, int Cols, int K) {
  int Tiles = (K + Tile - 1) / Tile;
  int KSplit = (Tiles + M.Splits - 1) / M.Splits * Tile;
  int Splits = (K + KSplit - 1) / KSplit;
  dim3 Block(Tile, Tile);
  dim3 Grid((Cols + Tile - 1) / Tile, (Rows + Tile - 1) / Tile, Splits);
  gemm_strided<<<Grid, Block, 0, M.Stream>>>(
      A, sAr, sAc, B, sBr, sBc, Splits > 1 ? M.Partial : C, Rows, Cols, K,
      KSplit);
  if (Splits > 1)
    sumSplits(M, C, Splits, size_t(Rows) * Cols);
}

// Out[c] = the sum of X[r][c] over the Rows rows, in M.Splits row groups.
void columnSum(const Model &M, const float *X, float *Out, int Rows,
               int Cols) {
  if (M.Splits == 1) {
    column_sum<<<blocksFor(Cols, 256), 256, 0, M.Stream>>>(X, Out, Rows, Cols);
    return;
  }
  int GroupRows = (Rows + M.Splits - 1) / M.Splits;
  int Groups = (Rows + GroupRows - 1) / GroupRows;
  column_sum_groups<<<dim3(blocksFor(Cols, 256), Groups), 256, 0, M.Stream>>>(
      X, M.Partial, Rows, Cols, GroupRows);
  sumSplits(M, Out, Groups, size_t(Cols));
}

void step(const Model &M, float Lr) {
  const int Bt = M.Batch, H = M.Hidden, N = Bt * H;
  // Forward: Z_l = X_l W_l + b_l, Y_l = gelu(Z_l), X_{l+1} = Y_l.
  for (int L = 0; L < M.Layers; ++L) {
    const float *X = L == 0 ? M.Input : M.Y[L - 1];
    gemm(M, X, H, 1, M.W[L], H, 1, M.Z[L], Bt, H, H);
    bias_gelu<<<blocksFor(N, 256), 256, 0, M.Stream>>>(M.Z[L], M.B[L], M.Y[L],
                                                        Bt, H);
  }
  mse_grad<<<blocksFor(N, 256), 256, 0, M.Stream>>>(M.Y[M.Layers - 1],
                                                     M.Target, M.DY, N);
  // Backward, last layer first: DY holds dLoss/dY_l.
  for (int L = M.Layers - 1; L >= 0; --L) {
    const float *X = L == 0 ? M.Input : M.Y[L - 1];
    gelu_backward<<<blocksFor(N, 256), 256, 0, M.Stream>>>(M.DY, M.Z[L], M.DZ,
                                                            N);
    gemm(M, X, 1, H, M.DZ, H, 1, M.DW[L], H, H, Bt); // X^T dZ
    columnSum(M, M.DZ, M.DB[L], Bt, H);
    if (L > 0)
      gemm(M, M.DZ, H, 1, M.W[L], 1, H, M.DY, Bt, H, H); // dZ W^T
  }
  for (int L = 0; L < M.Layers; ++L) {
    sgd<<<blocksFor(size_t(H) * H, 256), 256, 0, M.Stream>>>(M.W[L], M.DW[L],
                                                              Lr, H * H);
    sgd<<<blocksFor(H, 256), 256, 0, M.Stream>>>(M.B[L], M.DB[L], Lr, H);
  }
}

} // namespace

extern "C" {

int train_init(int Batch, int Hidden, int Layers, int Splits,
               unsigned Seed) {
  if (Batch < 1 || Hidden < 1 || Layers < 1 || Splits < 1) {
    std::fprintf(stderr,
                 "train_mlp: batch, hidden, layers and splits must be at "
                 "least 1, not %d, %d, %d, %d\n",
                 Batch, Hidden, Layers, Splits);
    return -1;
  }
  Model &M = TheModel;
  M.Batch = Batch;
  M.Hidden = Hidden;
  M.Layers = Layers;
  // No loop is split finer than into its tiles (or rows), so neither is
  // the partial sums' buffer sized for more.
  M.Splits = std::min(Splits, (std::max(Batch, Hidden) + Tile - 1) / Tile);
  if (!ok(cudaStreamCreateWithFlags(&M.Stream, cudaStreamNonBlocking),
          "cudaStreamCreate"))
    return -1;
  size_t N = size_t(Batch) * Hidden, WSize = size_t(Hidden) * Hidden;
  float Scale = 2.f / float(Hidden);
  for (int L = 0; L < Layers; ++L) {
    M.W.push_back(deviceArray(WSize, Seed, Scale * 16.f));
    M.B.push_back(deviceArray(Hidden, Seed, 0.1f));
    M.DW.push_back(deviceArray(WSize, Seed, 0.f));
    M.DB.push_back(deviceArray(Hidden, Seed, 0.f));
    M.Z.push_back(deviceArray(N, Seed, 0.f));
    M.Y.push_back(deviceArray(N, Seed, 0.f));
  }
  M.Input = deviceArray(N, Seed, 2.f);
  M.Target = deviceArray(N, Seed, 1.f);
  M.DY = deviceArray(N, Seed, 0.f);
  M.DZ = deviceArray(N, Seed, 0.f);
  M.Loss = deviceArray(1, Seed, 0.f);
  if (M.Splits > 1 &&
      !ok(cudaMalloc(&M.Partial, size_t(M.Splits) * std::max(N, WSize) *
                                     sizeof(float)),
          "cudaMalloc"))
    return -1;
  return M.Loss ? 0 : -1;
}

int train_steps(int Steps) {
  for (int I = 0; I < Steps; ++I)
    step(TheModel, 0.05f);
  return ok(cudaStreamSynchronize(TheModel.Stream), "train_steps") ? 0 : -1;
}

float train_loss(void) {
  const Model &M = TheModel;
  size_t N = size_t(M.Batch) * M.Hidden;
  mse_loss<<<1, 1024, 0, M.Stream>>>(M.Y[M.Layers - 1], M.Target, M.Loss,
                                     int(N));
  float Loss = -1.f;
  if (!ok(cudaMemcpyAsync(&Loss, M.Loss, sizeof Loss, cudaMemcpyDeviceToHost,
                          M.Stream),
          "train_loss") ||
      !ok(cudaStreamSynchronize(M.Stream), "train_loss"))
    return -1.f;
  return Loss;
}

void train_shutdown(void) {
  Model &M = TheModel;
  cudaStreamSynchronize(M.Stream);
  for (auto *List : {&M.W, &M.B, &M.DW, &M.DB, &M.Z, &M.Y})
    for (float *P : *List)
      cudaFree(P);
  for (float *P : {M.Input, M.Target, M.DY, M.DZ, M.Loss, M.Partial})
    cudaFree(P);
  cudaStreamDestroy(M.Stream);
  M = Model{};
}

} // extern "C"
