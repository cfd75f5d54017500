// libtrainkernels.so: the "framework library" of the launch-interposer demo.
// A multilayer perceptron classifier trained with SGD and momentum, in
// kernels of its own: tiled matrix products (three transposition forms),
// bias + ReLU, softmax cross-entropy (a block per row), reductions, and the
// optimizer step. Built by nvcc like any CUDA library (static cudart,
// compute_90 PTX next to sm_90 SASS) and never rebuilt for Baton: the demo
// recompiles it offline with baton-recompile and routes its launches with
// libbaton_preload.so.
//
// Deterministic: every reduction runs in a fixed order (no floating-point
// atomics), so the parameters after N steps are bitwise the same however
// the launches were scheduled, paused and resumed.
//
// C API (0 on success, -1 after printing the CUDA error):
//   int tk_init(int batch, int inputs, int hidden, int layers, int classes,
//               unsigned seed);
//   int tk_step(void);                     // one step, waited for
//   float tk_loss(void);                   // mean loss of the last step
//   unsigned long long tk_checksum(void);  // FNV-1a of every parameter
//   void tk_shutdown(void);
//
// The tiled product, the bias add, column_sum and the block sum come from
// bench/common/mlp_kernels.cuh, shared with bench/colocation/train_mlp.cu.
#include "../common/mlp_kernels.cuh"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

__device__ unsigned mix(unsigned X) {
  X ^= X >> 16;
  X *= 0x7feb352du;
  X ^= X >> 15;
  X *= 0x846ca68bu;
  return X ^ (X >> 16);
}

__global__ void fill_uniform(float *P, size_t N, unsigned Seed, float Scale) {
  size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] = Scale * (float(mix(unsigned(I) ^ mix(Seed)) >> 8) / 16777216.f - .5f);
}

__global__ void fill_labels(int *Labels, int N, int Classes, unsigned Seed) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Labels[I] = int(mix(unsigned(I) * 2654435761u ^ Seed) % unsigned(Classes));
}

// C[M x N] = op(A) op(B), op(A) of size M x K, strided as for tiledDot.
__global__ void matmul(const float *A, int Ra, int Ka, const float *B, int Kb,
                       int Cb, float *C, int M, int N, int K) {
  int Row = blockIdx.y * Tile + threadIdx.y;
  int Col = blockIdx.x * Tile + threadIdx.x;
  float Sum = tiledDot(A, Ra, Ka, B, Kb, Cb, M, N, K, Row, Col);
  if (Row < M && Col < N)
    C[size_t(Row) * N + Col] = Sum;
}

__global__ void bias_relu(float *Z, const float *Bias, int Rows, int Cols,
                          bool Relu) {
  addBias(Z, Bias, Rows, Cols,
          [=](size_t I, float V) { Z[I] = Relu ? fmaxf(V, 0.f) : V; });
}

// One block per row: the row's softmax, the loss of its label, and the
// gradient of the mean loss with respect to its logits.
__global__ void softmax_xent(const float *Logits, const int *Labels,
                             float *Grad, float *RowLoss, int Classes,
                             float Scale) {
  __shared__ float Scratch[256];
  const float *Z = Logits + size_t(blockIdx.x) * Classes;
  float Max = -INFINITY;
  for (int C = threadIdx.x; C < Classes; C += blockDim.x)
    Max = fmaxf(Max, Z[C]);
  Scratch[threadIdx.x] = Max;
  __syncthreads();
  for (int Half = blockDim.x / 2; Half > 0; Half /= 2) {
    if (threadIdx.x < Half)
      Scratch[threadIdx.x] =
          fmaxf(Scratch[threadIdx.x], Scratch[threadIdx.x + Half]);
    __syncthreads();
  }
  Max = Scratch[0];
  __syncthreads();
  float Sum = 0.f;
  for (int C = threadIdx.x; C < Classes; C += blockDim.x)
    Sum += expf(Z[C] - Max);
  Sum = blockSum(Scratch, Sum);
  int Label = Labels[blockIdx.x];
  for (int C = threadIdx.x; C < Classes; C += blockDim.x) {
    float P = expf(Z[C] - Max) / Sum;
    Grad[size_t(blockIdx.x) * Classes + C] = Scale * (P - (C == Label));
  }
  if (threadIdx.x == 0)
    RowLoss[blockIdx.x] = logf(Sum) + Max - Z[Label];
}

// One block of 256 threads: strided sums, then a tree.
__global__ void mean(const float *X, float *Out, int N) {
  __shared__ float Scratch[256];
  float S = 0.f;
  for (int I = threadIdx.x; I < N; I += blockDim.x)
    S += X[I];
  S = blockSum(Scratch, S);
  if (threadIdx.x == 0)
    *Out = S / N;
}

// Gradient through ReLU, in place: Y is the layer's output.
__global__ void relu_backward(float *Grad, const float *Y, size_t N) {
  size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (I < N && Y[I] <= 0.f)
    Grad[I] = 0.f;
}

__global__ void sgd_momentum(float *W, const float *Grad, float *Velocity,
                             float Rate, float Momentum, size_t N) {
  size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  float V = Momentum * Velocity[I] + Grad[I];
  Velocity[I] = V;
  W[I] -= Rate * V;
}

struct Layer {
  int In = 0, Out = 0;
  float *W = nullptr, *B = nullptr, *DW = nullptr, *DB = nullptr;
  float *VW = nullptr, *VB = nullptr;
  float *Act = nullptr; ///< output, batch x Out
};

struct Net {
  int Batch = 0, Classes = 0;
  std::vector<Layer> Layers;
  float *Input = nullptr, *Grad = nullptr, *GradPrev = nullptr;
  float *RowLoss = nullptr, *Loss = nullptr;
  int *Labels = nullptr;
  cudaStream_t Stream = nullptr;
  std::vector<float *> Owned;
};

Net TheNet;

bool ok(cudaError_t E, const char *What) {
  if (E == cudaSuccess)
    return true;
  std::fprintf(stderr, "trainkernels: %s: %s\n", What, cudaGetErrorString(E));
  return false;
}

unsigned blocks(size_t N, unsigned Threads = 256) {
  return unsigned((N + Threads - 1) / Threads);
}

float *alloc(Net &N, size_t Count) {
  float *P = nullptr;
  if (!ok(cudaMalloc(&P, Count * sizeof(float)), "cudaMalloc"))
    return nullptr;
  N.Owned.push_back(P);
  cudaMemsetAsync(P, 0, Count * sizeof(float), N.Stream);
  return P;
}

void product(const Net &N, const float *A, int Ra, int Ka, const float *B,
             int Kb, int Cb, float *C, int M, int Cols, int K) {
  dim3 Threads(Tile, Tile);
  dim3 Grid((Cols + Tile - 1) / Tile, (M + Tile - 1) / Tile);
  matmul<<<Grid, Threads, 0, N.Stream>>>(A, Ra, Ka, B, Kb, Cb, C, M, Cols, K);
}

void step(Net &N, float Rate, float Momentum) {
  const int Bt = N.Batch;
  const size_t Last = N.Layers.size() - 1;
  for (size_t L = 0; L < N.Layers.size(); ++L) {
    Layer &Y = N.Layers[L];
    const float *X = L == 0 ? N.Input : N.Layers[L - 1].Act;
    product(N, X, Y.In, 1, Y.W, Y.Out, 1, Y.Act, Bt, Y.Out, Y.In); // X W
    bias_relu<<<blocks(size_t(Bt) * Y.Out), 256, 0, N.Stream>>>(
        Y.Act, Y.B, Bt, Y.Out, L != Last);
  }
  softmax_xent<<<Bt, 256, 0, N.Stream>>>(N.Layers[Last].Act, N.Labels, N.Grad,
                                         N.RowLoss, N.Classes, 1.f / Bt);
  mean<<<1, 256, 0, N.Stream>>>(N.RowLoss, N.Loss, Bt);
  // Grad holds dLoss/dZ of layer L; GradPrev receives that of layer L-1.
  for (size_t L = N.Layers.size(); L-- > 0;) {
    Layer &Y = N.Layers[L];
    const float *X = L == 0 ? N.Input : N.Layers[L - 1].Act;
    product(N, X, 1, Y.In, N.Grad, Y.Out, 1, Y.DW, Y.In, Y.Out, Bt); // X^T G
    column_sum<<<blocks(Y.Out), 256, 0, N.Stream>>>(N.Grad, Y.DB, Bt, Y.Out);
    if (L > 0) {
      product(N, N.Grad, Y.Out, 1, Y.W, 1, Y.Out, N.GradPrev, Bt, Y.In,
              Y.Out); // G W^T
      relu_backward<<<blocks(size_t(Bt) * Y.In), 256, 0, N.Stream>>>(
          N.GradPrev, N.Layers[L - 1].Act, size_t(Bt) * Y.In);
      std::swap(N.Grad, N.GradPrev);
    }
  }
  for (Layer &Y : N.Layers) {
    size_t Weights = size_t(Y.In) * Y.Out;
    sgd_momentum<<<blocks(Weights), 256, 0, N.Stream>>>(Y.W, Y.DW, Y.VW, Rate,
                                                        Momentum, Weights);
    sgd_momentum<<<blocks(Y.Out), 256, 0, N.Stream>>>(Y.B, Y.DB, Y.VB, Rate,
                                                      Momentum, Y.Out);
  }
}

} // namespace

extern "C" {

int tk_init(int Batch, int Inputs, int Hidden, int Layers, int Classes,
            unsigned Seed) {
  Net &N = TheNet;
  N.Batch = Batch;
  N.Classes = Classes;
  if (!ok(cudaStreamCreateWithFlags(&N.Stream, cudaStreamNonBlocking),
          "cudaStreamCreate"))
    return -1;
  int Widest = std::max(std::max(Inputs, Hidden), Classes);
  N.Input = alloc(N, size_t(Batch) * Inputs);
  N.Grad = alloc(N, size_t(Batch) * Widest);
  N.GradPrev = alloc(N, size_t(Batch) * Widest);
  N.RowLoss = alloc(N, Batch);
  N.Loss = alloc(N, 1);
  if (!ok(cudaMalloc(&N.Labels, Batch * sizeof(int)), "cudaMalloc"))
    return -1;
  fill_uniform<<<blocks(size_t(Batch) * Inputs), 256, 0, N.Stream>>>(
      N.Input, size_t(Batch) * Inputs, Seed, 2.f);
  fill_labels<<<blocks(Batch), 256, 0, N.Stream>>>(N.Labels, Batch, Classes,
                                                   Seed);
  for (int L = 0; L <= Layers; ++L) {
    Layer Y;
    Y.In = L == 0 ? Inputs : Hidden;
    Y.Out = L == Layers ? Classes : Hidden;
    size_t Weights = size_t(Y.In) * Y.Out;
    Y.W = alloc(N, Weights);
    Y.DW = alloc(N, Weights);
    Y.VW = alloc(N, Weights);
    Y.B = alloc(N, Y.Out);
    Y.DB = alloc(N, Y.Out);
    Y.VB = alloc(N, Y.Out);
    Y.Act = alloc(N, size_t(Batch) * Y.Out);
    if (!Y.Act)
      return -1;
    // He-style scale keeps activations in range for any width.
    fill_uniform<<<blocks(Weights), 256, 0, N.Stream>>>(
        Y.W, Weights, Seed + 17 * (L + 1), 2.f * sqrtf(6.f / Y.In));
    N.Layers.push_back(Y);
  }
  return ok(cudaStreamSynchronize(N.Stream), "init") ? 0 : -1;
}

int tk_step(void) {
  step(TheNet, 0.05f, 0.9f);
  if (!ok(cudaGetLastError(), "launch"))
    return -1;
  return ok(cudaStreamSynchronize(TheNet.Stream), "step") ? 0 : -1;
}

float tk_loss(void) {
  float Loss = 0.f;
  ok(cudaMemcpy(&Loss, TheNet.Loss, sizeof(float), cudaMemcpyDeviceToHost),
     "cudaMemcpy");
  return Loss;
}

unsigned long long tk_checksum(void) {
  unsigned long long Hash = 1469598103934665603ull;
  auto Mix = [&](const float *Device, size_t Count) {
    std::vector<unsigned char> Host(Count * sizeof(float));
    ok(cudaMemcpy(Host.data(), Device, Host.size(), cudaMemcpyDeviceToHost),
       "cudaMemcpy");
    for (unsigned char Byte : Host)
      Hash = (Hash ^ Byte) * 1099511628211ull;
  };
  for (const Layer &Y : TheNet.Layers) {
    Mix(Y.W, size_t(Y.In) * Y.Out);
    Mix(Y.B, Y.Out);
  }
  return Hash;
}

void tk_shutdown(void) {
  Net &N = TheNet;
  cudaStreamSynchronize(N.Stream);
  for (float *P : N.Owned)
    cudaFree(P);
  cudaFree(N.Labels);
  cudaStreamDestroy(N.Stream);
  N = Net();
}

} // extern "C"
