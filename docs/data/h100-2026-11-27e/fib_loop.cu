// Forty-first session: the control for fib_check. recursive_fib as in
// test/corpus/src/calls.cu, and the same body in a persistent loop written
// in CUDA (a leader claims a block, a barrier publishes it), compiled by
// nvcc. If the loop is wrong here too, a recursive callee inside a
// barrier loop is beyond what Baton's PTB form can fix.
//
//   fib_loop THREADS WORKERS
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

#define CK(X)                                                                  \
  do {                                                                         \
    cudaError_t E_ = (X);                                                      \
    if (E_ != cudaSuccess) {                                                   \
      std::printf("%s: %s\n", #X, cudaGetErrorString(E_));                     \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

int main(int Argc, char **Argv) {
  if (Argc != 3)
    return std::printf("usage: fib_loop THREADS WORKERS\n"), 2;
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
  CK(cudaMemset(Out, 0xff, Words * 4));
  CK(cudaMemset(Cursor, 0, 4));
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
  std::printf("loop %s: %zu of %zu words differ; blocks %s\n",
              Wrong ? "WRONG" : "equal", Wrong, Words, Marks.c_str());
  return Wrong ? 4 : 0;
}
