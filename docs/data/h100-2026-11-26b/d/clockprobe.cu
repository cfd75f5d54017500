// SM clock seen by a kernel: one block per SM spins a fixed number of
// clock64 cycles and reads %globaltimer around the spin (ns).
#include <cuda_runtime.h>
#include <cstdint>

__global__ void clock_probe(unsigned long long *Out, long long Cycles) {
  if (threadIdx.x != 0)
    return;
  unsigned long long T0, T1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T0));
  long long C0 = clock64();
  while (clock64() - C0 < Cycles) {
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T1));
  unsigned Sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(Sm));
  Out[2 * blockIdx.x] = T1 - T0;
  Out[2 * blockIdx.x + 1] = T0;
}

extern "C" int launch_clock_probe(void *Out, long long Cycles, int Blocks,
                                  void *Stream) {
  clock_probe<<<Blocks, 32, 0, (cudaStream_t)Stream>>>(
      (unsigned long long *)Out, Cycles);
  return (int)cudaGetLastError();
}
