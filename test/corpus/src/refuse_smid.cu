// Baton test corpus: REFUSAL case - hardware placement registers.
//
// %smid (and %nsmid, %warpid) report where a block physically runs. Kernels
// that use them for correctness (per-SM work queues, per-SM scratch slots)
// silently change meaning when virtual blocks migrate between workers and
// between preempted launches, so a correct tool refuses them.

// Record the SM each block ran on.
extern "C" __global__ void smid_probe(unsigned* __restrict__ out) {
  unsigned smid;
  asm("mov.u32 %0, %%smid;" : "=r"(smid));
  if (threadIdx.x == 0) out[blockIdx.x] = smid;
}

// Per-SM scratch accumulation: the slot is chosen by %smid, so two blocks on
// the same SM share a slot. Correct only as long as blocks stay where the
// hardware put them.
extern "C" __global__ void per_sm_accumulate(const int* __restrict__ in,
                                             unsigned long long* __restrict__ per_sm, int n) {
  unsigned smid, nsmid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&per_sm[smid % nsmid], (unsigned long long)(long long)in[i]);
}
