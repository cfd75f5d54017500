// A program that captures its kernels into a CUDA graph and replays it, for
// the launch interposer's GPU test (test/Preload/graph-check.sh). Run
// plainly or preloaded, it must compute the same: eager launches (which a
// best-effort interposer schedules), then a capture in global mode on a
// second stream while eager launches are still in flight on the first (so
// that the scheduler's thread is busy during the capture), replays of the
// graph with new inputs between them, and eager launches again. Every
// result is checked against the CPU.
//
//   graph_check ROUNDS [LINGER_MS]
//
// Prints "graph_check: N passed, M failed" and exits 1 on a failed check
// or a CUDA error; then sleeps LINGER_MS (the test reads the GPU's registry
// meanwhile).

#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

constexpr int N = 1 << 22;
constexpr int Threads = 256;
constexpr int Blocks = N / Threads;

__global__ void affine(const float *x, float a, float b, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    y[i] = fmaf(a, x[i], b); // as the CPU's std::fma below
}

// One partial sum per block, in a fixed order: bitwise reproducible.
__global__ void block_sums(const float *y, float *partial) {
  __shared__ float s[Threads];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = y[i];
  __syncthreads();
  for (int w = Threads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s[0];
}

int Passed = 0, Failed = 0;

void check(cudaError_t E, const char *What) {
  if (E == cudaSuccess)
    return;
  std::printf("graph_check: %s: %s\n", What, cudaGetErrorString(E));
  std::exit(1);
}

/// The CPU's partial sums of a * x + b, in the kernel's order.
std::vector<float> expected(const std::vector<float> &X, float A, float B) {
  std::vector<float> P(Blocks);
  std::vector<float> S(Threads);
  for (int Blk = 0; Blk < Blocks; ++Blk) {
    for (int T = 0; T < Threads; ++T)
      S[T] = std::fma(A, X[Blk * Threads + T], B);
    for (int W = Threads / 2; W > 0; W /= 2)
      for (int T = 0; T < W; ++T)
        S[T] += S[T + W];
    P[Blk] = S[0];
  }
  return P;
}

void verify(const char *What, float *Partial, cudaStream_t S,
            const std::vector<float> &Want) {
  std::vector<float> Got(Blocks);
  check(cudaMemcpyAsync(Got.data(), Partial, Blocks * sizeof(float),
                        cudaMemcpyDeviceToHost, S),
        "copy back");
  check(cudaStreamSynchronize(S), What);
  int Wrong = 0;
  for (int I = 0; I < Blocks; ++I)
    Wrong += Got[I] != Want[I];
  if (Wrong)
    std::printf("graph_check: %s: %d of %d sums wrong\n", What, Wrong, Blocks);
  ++(Wrong ? Failed : Passed);
}

std::vector<float> inputs(unsigned Seed) {
  std::vector<float> X(N);
  for (int I = 0; I < N; ++I) {
    Seed = Seed * 1664525u + 1013904223u;
    X[I] = float(Seed >> 8) / float(1u << 24) - 0.5f;
  }
  return X;
}

} // namespace

int main(int Argc, char **Argv) {
  int Rounds = Argc > 1 ? std::atoi(Argv[1]) : 10;
  int LingerMs = Argc > 2 ? std::atoi(Argv[2]) : 0;
  float *X, *Y, *Partial, *Busy;
  check(cudaMalloc(&X, N * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&Y, N * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&Busy, N * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&Partial, Blocks * sizeof(float)), "cudaMalloc");
  cudaStream_t Eager, Capture;
  check(cudaStreamCreateWithFlags(&Eager, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&Capture, cudaStreamNonBlocking), "stream");

  auto Run = [&](cudaStream_t S, float A, float B) {
    affine<<<Blocks, Threads, 0, S>>>(X, A, B, Y);
    block_sums<<<Blocks, Threads, 0, S>>>(Y, Partial);
  };
  auto Load = [&](const std::vector<float> &Host, cudaStream_t S) {
    check(cudaMemcpyAsync(X, Host.data(), N * sizeof(float),
                          cudaMemcpyHostToDevice, S),
          "copy in");
    check(cudaStreamSynchronize(S), "copy in");
  };

  // Eager.
  std::vector<float> Host = inputs(1);
  Load(Host, Eager);
  for (int R = 0; R < Rounds; ++R) {
    Run(Eager, 1.5f, float(R));
    verify("eager", Partial, Eager, expected(Host, 1.5f, float(R)));
  }

  // Capture in global mode while eager work (into another buffer) is still
  // queued on the first stream.
  for (int R = 0; R < 20; ++R)
    affine<<<Blocks, Threads, 0, Eager>>>(X, 0.5f, float(R), Busy);
  cudaGraph_t Graph;
  cudaGraphExec_t Exec;
  check(cudaStreamBeginCapture(Capture, cudaStreamCaptureModeGlobal),
        "begin capture");
  Run(Capture, -2.0f, 0.25f);
  check(cudaStreamEndCapture(Capture, &Graph), "end capture");
  check(cudaGraphInstantiate(&Exec, Graph, 0), "instantiate");
  check(cudaStreamSynchronize(Eager), "eager work during the capture");

  // Replays, each with new inputs: a replay that ran nothing, or the
  // kernels of the capture's time, would leave the old sums.
  for (int R = 0; R < Rounds; ++R) {
    Host = inputs(100 + R);
    Load(Host, Capture);
    check(cudaGraphLaunch(Exec, Capture), "graph launch");
    verify("replay", Partial, Capture, expected(Host, -2.0f, 0.25f));
  }

  // Eager again.
  for (int R = 0; R < Rounds; ++R) {
    Run(Eager, 3.0f, -float(R));
    verify("eager after", Partial, Eager, expected(Host, 3.0f, -float(R)));
  }
  check(cudaGraphExecDestroy(Exec), "destroy");
  check(cudaGraphDestroy(Graph), "destroy");
  check(cudaDeviceSynchronize(), "final synchronize");
  std::printf("graph_check: %d passed, %d failed\n", Passed, Failed);
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::milliseconds(LingerMs));
  return Failed ? 1 : 0;
}
