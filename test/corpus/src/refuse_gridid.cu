// Baton test corpus: launch-time state a virtual block cannot keep. Must be
// refused (no manifest lines).
//
//  * grid_and_smem_ids: reads %gridid, which differs between a launch and
//    the runs that resume it, and %total_smem_size, which a PTB launch's
//    extra dynamic shared memory changes (PTB only).

extern "C" __global__ void grid_and_smem_ids(unsigned long long *out) {
  unsigned long long grid, now;
  unsigned total;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(total));
  if (threadIdx.x == 0)
    out[blockIdx.x] = grid + (now & 1) + total;
}
