// Two kernels and a host launcher: the device code whose fatbin entries the
// tests in test/Fatbin extract.
__global__ void addOne(float *P, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] += 1.0f;
}

__global__ void scale(float *P, float S, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] *= S;
}

void launchKernels(float *P, int N) {
  addOne<<<(N + 127) / 128, 128>>>(P, N);
  scale<<<(N + 127) / 128, 128>>>(P, 2.0f, N);
}
