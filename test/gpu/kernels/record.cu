// Kernels for Baton's GPU tests and benchmarks. The committed record.ptx is
// generated from this file (the device build needs no nvcc):
//
//   nvcc -ptx -arch=sm_90a -O3 record.cu -o record.ptx
//
// record: every block counts itself once in counts[linear block id] (x
// fastest, as Baton numbers virtual blocks), then all its threads spin for
// spin_ns nanoseconds of %globaltimer so that a block has a known duration,
// then meet at a barrier (so a variant must keep the whole block together).
// A count other than 1 after a launch means a block was lost or repeated.

extern "C" __device__ __forceinline__ unsigned long long globalTimer() {
  unsigned long long T;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T));
  return T;
}

extern "C" __global__ void record(unsigned *counts,
                                  unsigned long long spin_ns) {
  unsigned Block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
    atomicAdd(&counts[Block], 1u);
  if (spin_ns != 0) {
    unsigned long long Start = globalTimer();
    while (globalTimer() - Start < spin_ns) {
    }
  }
  __syncthreads();
}
