// Forty-first session, call i: which forms of the claim loop does ptxas
// compile right around a recursive callee? fib_loop.cu's claim loop (a
// leader claims a block, a barrier publishes it through shared memory) is
// wrong at -O3; this tries variations of how the block index reaches the
// body.
//
//   fib_shapes THREADS WORKERS SHAPE
//     plain     fib_loop.cu's claim loop
//     volatile  the index read through a volatile pointer
//     shfl      the index read, then broadcast from lane 0 with __shfl_sync
//     noinline  the body in a __noinline__ function
//     fence     an empty asm with a memory clobber after the read
//     parity    two slots used in turn and one barrier a block, as Baton's
//               PTB loop does
//     allatomic every thread adds to the cursor (thread 0 one, the others
//               zero), so no branch skips the claim (call j)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __forceinline__ void body(int *out, unsigned b) {
  int local[16];
  for (int i = 0; i < 16; ++i)
    local[i] = fib((threadIdx.x + b + i) % 12);
  out[b * blockDim.x + threadIdx.x] =
      local[(threadIdx.x * 7) % 16] + local[b % 16];
}

__device__ __noinline__ void body_noinline(int *out, unsigned b) {
  body(out, b);
}

__global__ void recursive_fib(int *out) { body(out, blockIdx.x); }

template <int Shape>
__global__ void claim_loop(int *out, unsigned *cursor, unsigned blocks) {
  __shared__ unsigned claimed[2];
  unsigned parity = 0;
  for (;;) {
    if (Shape == 6) {
      unsigned v = atomicAdd(cursor, threadIdx.x == 0 ? 1u : 0u);
      if (threadIdx.x == 0)
        claimed[parity] = v;
    } else if (threadIdx.x == 0) {
      claimed[parity] = atomicAdd(cursor, 1);
    }
    __syncthreads();
    unsigned b;
    if (Shape == 1)
      b = *static_cast<volatile unsigned *>(&claimed[parity]);
    else
      b = claimed[parity];
    if (Shape == 2)
      b = __shfl_sync(0xffffffffu, b, 0);
    if (Shape == 4)
      asm volatile("" ::: "memory");
    if (b >= blocks)
      return;
    if (Shape == 3)
      body_noinline(out, b);
    else
      body(out, b);
    if (Shape != 5)
      __syncthreads();
    parity ^= Shape == 5;
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
  if (Argc != 4)
    return std::printf("usage: fib_shapes THREADS WORKERS SHAPE\n"), 2;
  const unsigned Threads = std::atoi(Argv[1]), Workers = std::atoi(Argv[2]);
  const std::string Shape = Argv[3];
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
  if (Shape == "plain")
    claim_loop<0><<<Workers, Threads>>>(Out, Cursor, Blocks);
  else if (Shape == "volatile")
    claim_loop<1><<<Workers, Threads>>>(Out, Cursor, Blocks);
  else if (Shape == "shfl")
    claim_loop<2><<<Workers, Threads>>>(Out, Cursor, Blocks);
  else if (Shape == "noinline")
    claim_loop<3><<<Workers, Threads>>>(Out, Cursor, Blocks);
  else if (Shape == "fence")
    claim_loop<4><<<Workers, Threads>>>(Out, Cursor, Blocks);
  else if (Shape == "parity")
    claim_loop<5><<<Workers, Threads>>>(Out, Cursor, Blocks);
  else if (Shape == "allatomic")
    claim_loop<6><<<Workers, Threads>>>(Out, Cursor, Blocks);
  else
    return std::printf("unknown shape %s\n", Shape.c_str()), 2;
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(Got.data(), Out, Words * 4, cudaMemcpyDeviceToHost));
  size_t Wrong = 0;
  for (size_t I = 0; I < Words; ++I)
    Wrong += Got[I] != Expected[I];
  std::printf("%s %s: %zu of %zu words differ\n", Shape.c_str(),
              Wrong ? "WRONG" : "equal", Wrong, Words);
  return Wrong ? 4 : 0;
}
