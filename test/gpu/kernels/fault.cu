// A kernel that faults in one virtual block, for the runtime's hostile-input
// test: block `victim` stores through `bad` (an address no allocation
// covers), every other block counts itself like record.cu. The committed
// fault.ptx is generated from this file:
//
//   nvcc -ptx -arch=sm_90a -O3 fault.cu -o fault.ptx

extern "C" __global__ void fault_in_block(unsigned *counts, unsigned victim,
                                          unsigned *bad) {
  unsigned Block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (threadIdx.x == 0) {
    if (Block == victim)
      *reinterpret_cast<volatile unsigned *>(bad) = 1;
    atomicAdd(&counts[Block], 1u);
  }
}
