// The host side of a clang CUDA build with the plugin: <<<...>>> launches
// and direct cudaLaunchKernel calls (through cuda_runtime.h's C++ template,
// once inlined) call the Baton shim; a kernel annotated baton_skip is left
// alone. At -O0 the template is not inlined, so only the stubs are routed.
// REQUIRES: baton-plugin
// RUN: %clang-cuda --cuda-host-only -S -emit-llvm -O2 -fpass-plugin=%baton-plugin %s -o - | FileCheck %s
// RUN: %clang-cuda --cuda-host-only -S -emit-llvm -O0 -fpass-plugin=%baton-plugin %s -o - | FileCheck %s --check-prefix=O0

__global__ void scale(float *a) { a[threadIdx.x] *= 2.f; }
__global__ void __attribute__((annotate("baton_skip"))) untouched(float *a) {
  a[threadIdx.x] = 0.f;
}

// CHECK-LABEL: define {{.*}}@_Z6launchPfP11CUstream_st(
// CHECK: call {{.*}}@baton_cudaLaunchKernel(ptr {{.*}}@_Z20__device_stub__scalePf
// CHECK: call {{.*}}@cudaLaunchKernel(ptr {{.*}}@_Z24__device_stub__untouchedPf
// CHECK: call {{.*}}@baton_cudaLaunchKernel(ptr {{.*}}@_Z20__device_stub__scalePf
// O0-LABEL: define {{.*}}@_Z20__device_stub__scalePf(
// O0: call {{.*}}@baton_cudaLaunchKernel(ptr {{.*}}@_Z20__device_stub__scalePf
// O0-LABEL: define {{.*}}@_Z24__device_stub__untouchedPf(
// O0: call {{.*}}@cudaLaunchKernel(ptr {{.*}}@_Z24__device_stub__untouchedPf
void launch(float *a, cudaStream_t s) {
  scale<<<1, 32, 0, s>>>(a);
  untouched<<<1, 32, 0, s>>>(a);
  void *args[] = {&a};
  cudaLaunchKernel(scale, dim3(1), dim3(32), args, 0, s);
}
