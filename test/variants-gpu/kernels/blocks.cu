// Kernels for the exactly-once checks of variant_check and for the
// preemption-latency benchmark: every block counts its own executions in
// counts[linear block id] and spins for a while, so preemption lands
// mid-grid. After any sequence of pauses and resumes every count must have
// grown by exactly 1, as the original kernel's do. blocks.ptx is generated:
//   nvcc -ptx -arch=sm_90a -O3 blocks.cu -o blocks.ptx
extern "C" __global__ void count_blocks(unsigned *counts, unsigned spin_ns) {
  unsigned id = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (threadIdx.x == 0)
    atomicAdd(&counts[id], 1u);
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < spin_ns);
}

// The same with an early exit before a barrier, so the PTB drain protocol
// is exercised under preemption too.
extern "C" __global__ void count_blocks_guarded(unsigned *counts,
                                                 unsigned spin_ns,
                                                 unsigned active) {
  __shared__ unsigned seen;
  unsigned id = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (threadIdx.x == 0)
    seen = 0;
  __syncthreads();
  if (threadIdx.x >= active)
    return;
  atomicAdd(&seen, 1u);
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(&counts[id], seen == active ? 1u : 1000u);
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < spin_ns);
}
