// clang -fpass-plugin on a CUDA file: the device module gets the variants
// (ABI signature: original parameters + .u64 .ptr .global .align 128), refused
// kernels get a warning at their source line, and ptxas accepts the result.
// REQUIRES: baton-plugin
// RUN: %clang-cuda --cuda-device-only -S -O3 -g -fpass-plugin=%baton-plugin %s -o %t.ptx 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %ptxas %t.ptx -o /dev/null
// RUN: FileCheck %s < %t.ptx

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void votes(int *out, int v) {
  out[blockIdx.x] = __syncthreads_count(v > threadIdx.x);
}

__global__ void on_sm(int *out) {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  out[blockIdx.x] = s;
}

__global__ void tail_votes(int *out, int n) {
  if (threadIdx.x >= n)
    return;
  out[blockIdx.x] = __syncthreads_count(1);
}

// WARN-NOT: _Z5votesPii
// WARN: e2e-variants.cu:21:{{[0-9]+}}: kernel '_Z5on_smPi' gets no variants: reads %smid, {{.*}} [hardware-id]
// WARN: e2e-variants.cu:28:{{[0-9]+}}: kernel '_Z10tail_votesPii' gets no ptb variant: {{.*}} [barrier-reduction]

// CHECK: .extern .shared .align 16 .b8 baton_dynamic_smem[];
// CHECK-LABEL: .entry _Z5saxpyifPKfPf__baton_slice(
// CHECK-NEXT: .param .u32 _Z5saxpyifPKfPf__baton_slice_param_0,
// CHECK-NEXT: .param .f32 _Z5saxpyifPKfPf__baton_slice_param_1,
// CHECK-NEXT: .param .u64 .ptr .align 1 _Z5saxpyifPKfPf__baton_slice_param_2,
// CHECK-NEXT: .param .u64 .ptr .align 1 _Z5saxpyifPKfPf__baton_slice_param_3,
// CHECK-NEXT: .param .u64 .ptr .global .align 128 _Z5saxpyifPKfPf__baton_slice_param_4
// CHECK-NEXT: )
// CHECK-LABEL: .entry _Z5saxpyifPKfPf__baton_ptb(
// CHECK: .param .u64 .ptr .global .align 128 _Z5saxpyifPKfPf__baton_ptb_param_4
// CHECK: atom.global.add.u32
// CHECK-LABEL: .entry _Z5votesPii__baton_slice(
// CHECK-LABEL: .entry _Z5votesPii__baton_ptb(
// CHECK: bar.red.popc.u32
// CHECK-NOT: .entry _Z5on_smPi__baton
// CHECK-LABEL: .entry _Z10tail_votesPii__baton_slice(
// CHECK-NOT: .entry _Z10tail_votesPii__baton_ptb(
