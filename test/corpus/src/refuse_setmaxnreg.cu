// Baton test corpus: warp specialisation with register reallocation. The
// PTB variant must be refused (a worker would repeat setmaxnreg in every
// virtual block); the slice variant is made. No manifest lines.
//
//  * producer_consumer: warp 0 gives registers back and stages a tile
//    (elect.sync picks one lane), the other warps take registers and
//    consume it.

extern "C" __global__ void __launch_bounds__(256)
    producer_consumer(float *out, const float *in) {
  __shared__ float tile[128];
  int warp = threadIdx.x / 32;
  if (warp == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    unsigned leader;
    asm volatile("{ .reg .pred p; elect.sync _|p, 0xffffffff; "
                 "selp.u32 %0, 1, 0, p; }"
                 : "=r"(leader));
    for (int i = threadIdx.x; i < 128; i += 32)
      tile[i] = in[blockIdx.x * 128 + i] + (leader ? 0.0f : 0.0f);
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  }
  __syncthreads();
  if (warp > 0 && threadIdx.x - 32 < 128)
    out[blockIdx.x * 128 + threadIdx.x - 32] = tile[threadIdx.x - 32] + 1.0f;
}
