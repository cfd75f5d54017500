// A program that launches a kernel of kernels.cu the usual way, through the
// CUDA runtime.
#include <cstdio>

extern "C" void launchScale(float *Data, int N);

int main() {
  float *Data = nullptr;
  cudaMalloc(&Data, 256 * sizeof(float));
  launchScale(Data, 256);
  std::printf("launch: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
