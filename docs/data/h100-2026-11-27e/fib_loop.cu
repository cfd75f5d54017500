// Forty-first session: the control for fib_check. recursive_fib as in
// test/corpus/src/calls.cu, and the same body in a persistent loop written
// in CUDA (a leader claims a block, a barrier publishes it), compiled by
// nvcc. If the loop is wrong here too, a recursive callee inside a
// barrier loop is beyond what Baton's PTB form can fix. Two more loops
// (call c) tell the loop from the barrier: a grid-stride loop, and the
// same with a __syncthreads() after each body.
//
//   fib_loop THREADS WORKERS [claim|stride|stride-sync]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ void body(int *out, unsigned b) {
  int local[16];
  for (int i = 0; i < 16; ++i)
    local[i] = fib((threadIdx.x + b + i) % 12);
  out[b * blockDim.x + threadIdx.x] =
      local[(threadIdx.x * 7) % 16] + local[b % 16];
}

__global__ void recursive_fib(int *out) { body(out, blockIdx.x); }

__global__ void loop_fib(int *out, unsigned *cursor, unsigned blocks) {
  __shared__ unsigned claimed;
  for (;;) {
    if (threadIdx.x == 0)
      claimed = atomicAdd(cursor, 1);
    __syncthreads();
    unsigned b = claimed;
    if (b >= blocks)
      return;
    body(out, b);
    __syncthreads();
  }
}

__global__ void stride_fib(int *out, unsigned blocks) {
  for (unsigned b = blockIdx.x; b < blocks; b += gridDim.x)
    body(out, b);
}

__global__ void stride_sync_fib(int *out, unsigned blocks) {
  for (unsigned b = blockIdx.x; b < blocks; b += gridDim.x) {
    body(out, b);
    __syncthreads();
  }
}

#define CK(X)                                                                  \
  do {                                                                         \
    cudaError_t E_ = (X);                                                      \
    if (E_ != cudaSuccess) {                                                   \
      std::printf("%s: %s\n", #X, cudaGetErrorString(E_));                     \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

int main(int Argc, char **Argv) {
  if (Argc != 3 && Argc != 4)
    return std::printf("usage: fib_loop THREADS WORKERS [claim|stride|"
                       "stride-sync]\n"),
           2;
  const std::string Loop = Argc == 4 ? Argv[3] : "claim";
  const unsigned Threads = std::atoi(Argv[1]), Workers = std::atoi(Argv[2]);
  const unsigned Blocks = 97;
  const size_t Words = size_t(Blocks) * Threads;
  int *Out;
  unsigned *Cursor;
  CK(cudaMalloc(&Out, Words * 4));
  CK(cudaMalloc(&Cursor, 4));
  std::vector<int> Expected(Words), Got(Words);
  recursive_fib<<<Blocks, Threads>>>(Out);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(Expected.data(), Out, Words * 4, cudaMemcpyDeviceToHost));
  size_t OriginalWrong = 0; // the original against the host's arithmetic
  for (unsigned B = 0; B < Blocks; ++B)
    for (unsigned T = 0; T < Threads; ++T) {
      auto HostFib = [](int N) {
        int A = 0, C = 1;
        for (int I = 0; I < N; ++I)
          C += A, A = C - A;
        return A;
      };
      int Want = HostFib((T + B + (T * 7) % 16) % 12) +
                 HostFib((T + B + B % 16) % 12);
      OriginalWrong += Expected[B * Threads + T] != Want;
    }
  if (OriginalWrong)
    std::printf("original WRONG against the host: %zu words\n", OriginalWrong);
  CK(cudaMemset(Out, 0xff, Words * 4));
  CK(cudaMemset(Cursor, 0, 4));
  if (Loop == "stride")
    stride_fib<<<Workers, Threads>>>(Out, Blocks);
  else if (Loop == "stride-sync")
    stride_sync_fib<<<Workers, Threads>>>(Out, Blocks);
  else
    loop_fib<<<Workers, Threads>>>(Out, Cursor, Blocks);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(Got.data(), Out, Words * 4, cudaMemcpyDeviceToHost));
  size_t Wrong = 0;
  std::string Marks;
  for (unsigned B = 0; B < Blocks; ++B) {
    size_t InBlock = 0;
    for (unsigned I = 0; I < Threads; ++I)
      InBlock += Got[B * Threads + I] != Expected[B * Threads + I];
    Wrong += InBlock;
    Marks += InBlock ? 'x' : '.';
  }
  std::printf("%s %s: %zu of %zu words differ; blocks %s\n",
              Loop.c_str(), Wrong ? "WRONG" : "equal", Wrong, Words,
              Marks.c_str());
  return Wrong ? 4 : 0;
}
