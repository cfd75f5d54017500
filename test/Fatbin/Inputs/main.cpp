// Host-only main for the executables built from kernels.cu.
void launchKernels(float *P, int N);

int main() {
  launchKernels(nullptr, 0);
  return 0;
}
