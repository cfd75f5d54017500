// -baton-lazy: the device side adds no variants but still warns about each
// refusal, and the host side registers the object with the launch shim
// (baton_cuda_lazy_variants, from a constructor). The fatbin then carries
// the PTX, from which baton-recompile (the build the shim runs at the
// first launch) gives the kernels their variants.
// REQUIRES: baton-plugin
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang-cuda --cuda-device-only -S -O3 -fpass-plugin=%baton-plugin -mllvm -baton-lazy %s -o %t/device.ptx 2> %t/warnings.txt
// RUN: FileCheck %s --check-prefix=PTX < %t/device.ptx
// The device code is exactly that of a build without the plugin.
// RUN: %clang-cuda --cuda-device-only -S -O3 %s -o %t/plain.ptx
// RUN: diff %t/plain.ptx %t/device.ptx
// RUN: FileCheck %s --check-prefix=WARN < %t/warnings.txt
// RUN: %clang-cuda -c -O3 -fpass-plugin=%baton-plugin -mllvm -baton-lazy --cuda-include-ptx=sm_90a %s -o %t/lazy.o 2>/dev/null
// RUN: nm %t/lazy.o | FileCheck %s --check-prefix=HOST
// RUN: %baton-recompile --cache-dir %t/cache --arch sm_90 %t/lazy.o | FileCheck %s --check-prefix=SIDE
// A selection of kernels on the device side would be lost at run time.
// RUN: not %clang-cuda --cuda-device-only -S -O3 -fpass-plugin=%baton-plugin -mllvm -baton-lazy -mllvm -baton-skip=scale %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SELECT

// SELECT: error: baton: -baton-kernels and -baton-skip do not apply with -baton-lazy

// PTX-NOT: __baton_
// PTX: .entry _Z5scalePfi(
// PTX-NOT: __baton_

// WARN: warning: kernel '_Z6readsmPj' gets no variants: reads %smid, {{.*}} [hardware-id]

// The host object routes launches and registers itself with the shim
// (test/LLVM/host/route-launches.ll checks the constructor).
// HOST-DAG: t baton.lazy_variants
// HOST-DAG: U baton_cudaLaunchKernel
// HOST-DAG: U baton_cuda_lazy_variants

// SIDE: kernels: 1 with variants (1 slice+ptb, 0 slice only, 0 ptb only), 1 refused, 0 SASS only

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.f;
}

__global__ void readsm(unsigned *out) {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  out[blockIdx.x] = id;
}

void launch(float *x, unsigned *sm, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, n);
  readsm<<<1, 1, 0, s>>>(sm);
}
