// Kernels of a small library for the side-module tests: two that get
// variants (one calls sinf, whose range reduction reads the toolkit's
// __cudart_i2opi_f table), two that use module state, one that synchronises
// the grid.
#include <cooperative_groups.h>

__constant__ float Coefficients[4];
__device__ unsigned Calls;

__global__ void scale(float *Data, float Factor, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Data[I] *= Factor;
}

__global__ void wave(float *Data, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Data[I] = sinf(Data[I]);
}

__global__ void polynomial(float *Data) {
  Data[threadIdx.x] = Coefficients[0] + Coefficients[1] * Data[threadIdx.x];
}

__global__ void counted(float *Data) {
  atomicAdd(&Calls, 1u);
  Data[threadIdx.x] = 0.f;
}

__global__ void gridSum(float *Data) {
  cooperative_groups::this_grid().sync();
  Data[0] = 1.f;
}

extern "C" void launchScale(float *Data, int N) {
  scale<<<(N + 255) / 256, 256>>>(Data, 2.f, N);
}
