// Kernels for bench/preempt_timeline: where the time of one preemption goes.
// timeline.ptx is generated:
//   nvcc -ptx -arch=sm_90a -O3 timeline.cu -o timeline.ptx

__device__ __forceinline__ unsigned long long globalTimer() {
  unsigned long long T;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T));
  return T;
}

// The end of the previous block that ran in this hardware block (a PTB
// worker runs many), kept in shared memory with a tag; 0 for the first.
__device__ __forceinline__ unsigned long long
previousEnd(unsigned long long (&last)[2]) {
  return last[1] == 0xba7012c0ffee5eedull ? last[0] : 0;
}

__device__ __forceinline__ void record(unsigned long long *stamps,
                                       unsigned id, unsigned long long start,
                                       unsigned long long (&last)[2]) {
  unsigned long long end = globalTimer();
  stamps[4 * id] = start;
  stamps[4 * id + 1] = end;
  stamps[4 * id + 2] = previousEnd(last);
  last[0] = end;
  last[1] = 0xba7012c0ffee5eedull;
}

// Like count_blocks (blocks.cu), but every block records when it started,
// when its last thread finished spinning, and when the block before it on
// the same worker ended: stamps[4 id .. 4 id + 2].
extern "C" __global__ void timed_blocks(unsigned long long *stamps,
                                        unsigned spin_ns) {
  __shared__ unsigned long long last[2];
  unsigned id = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned long long start = globalTimer();
  while (globalTimer() - start < spin_ns) {
  }
  __syncthreads();
  if (threadIdx.x == 0)
    record(stamps, id, start, last);
}

// The same, but one thread per warp reads the timer while the rest of the
// warp waits: a block that keeps its SM's memory pipeline nearly idle.
extern "C" __global__ void timed_blocks_quiet(unsigned long long *stamps,
                                              unsigned spin_ns) {
  __shared__ unsigned long long last[2];
  unsigned id = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned long long start = globalTimer();
  if ((threadIdx.x & 31) == 0)
    while (globalTimer() - start < spin_ns) {
    }
  __syncthreads();
  if (threadIdx.x == 0)
    record(stamps, id, start, last);
}

// One thread: waits until *flag is nonzero (or *abandon is), then records
// the time it saw it. Run beside a PTB launch, it timestamps the moment its
// preempt flag becomes visible to the device.
extern "C" __global__ void watch_flag(const volatile unsigned *flag,
                                      const volatile unsigned *abandon,
                                      unsigned long long *seen) {
  while (*flag == 0 && *abandon == 0) {
  }
  *seen = globalTimer();
}

// Calibration against the host clock: waits for *go (host memory), then
// writes the device time to *now (host memory).
extern "C" __global__ void clock_probe(const volatile unsigned *go,
                                       volatile unsigned long long *now) {
  while (*go == 0) {
  }
  *now = globalTimer();
}
