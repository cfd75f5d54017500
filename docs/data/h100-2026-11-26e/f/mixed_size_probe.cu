// Twenty-eighth session probe (H100): is a 32-bit stream write to the upper
// half of a 64-bit word ordered with 64-bit atomics on that word, so that a
// claim `old = atom.add.u64(&{next, flag}, 1)` sees the flag exactly when it
// comes after the write? Workers claim with 64-bit atomics while another
// stream writes the flag's half (cuStreamWriteValue32); afterwards every
// claim that saw the flag must have a larger cursor than every claim that
// did not (the flagged claims are the cursor's tail), and the cursors must
// be 0..N-1 exactly once.
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <thread>
#include <vector>

__global__ void claim(unsigned long long *Word, unsigned long long *Out,
                      unsigned PerWorker, unsigned Spin) {
  if (threadIdx.x != 0)
    return;
  for (unsigned I = 0; I < PerWorker; ++I) {
    unsigned long long Old = atomicAdd(Word, 1ull);
    Out[blockIdx.x * PerWorker + I] = Old;
    long long T0 = clock64();
    while (clock64() - T0 < Spin) {
    }
  }
}

int main() {
  const unsigned Workers = 132 * 8, PerWorker = 200;
  const size_t N = size_t(Workers) * PerWorker;
  unsigned long long *Word, *Out;
  cudaMalloc(&Word, 8);
  cudaMalloc(&Out, N * 8);
  cudaStream_t A, B;
  cudaStreamCreateWithFlags(&A, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&B, cudaStreamNonBlocking);
  std::vector<unsigned long long> H(N);
  int Trials = 0, Bad = 0, Split = 0;
  for (int Trial = 0; Trial < 60; ++Trial) {
    unsigned Spin = 200 + 400 * (Trial % 5);
    cudaMemset(Word, 0, 8);
    cudaDeviceSynchronize();
    claim<<<Workers, 32, 0, A>>>(Word, Out, PerWorker, Spin);
    std::this_thread::sleep_for(std::chrono::microseconds(20 + 37 * (Trial % 11)));
    CUresult R = cuStreamWriteValue32((CUstream)B,
                                      (CUdeviceptr)Word + 4, 1 + Trial,
                                      CU_STREAM_WRITE_VALUE_DEFAULT);
    if (R != CUDA_SUCCESS) {
      std::printf("cuStreamWriteValue32 failed: %d\n", int(R));
      return 2;
    }
    cudaDeviceSynchronize();
    cudaMemcpy(H.data(), Out, N * 8, cudaMemcpyDeviceToHost);
    ++Trials;
    uint32_t MaxClear = 0, MinFlag = UINT32_MAX;
    size_t Flagged = 0;
    std::vector<char> Seen(N, 0);
    bool Ok = true;
    for (unsigned long long V : H) {
      uint32_t Lo = uint32_t(V), Hi = uint32_t(V >> 32);
      if (Lo >= N || Seen[Lo]++) Ok = false;
      if (Hi) {
        ++Flagged;
        MinFlag = std::min(MinFlag, Lo);
        if (Hi != uint32_t(1 + Trial)) Ok = false;
      } else {
        MaxClear = std::max(MaxClear, Lo);
      }
    }
    if (Flagged && Flagged < N) ++Split;
    if (Flagged && Flagged < N && MaxClear > MinFlag) Ok = false;
    if (!Ok) {
      ++Bad;
      std::printf("trial %d: FAIL max clear %u min flagged %u flagged %zu\n",
                  Trial, MaxClear, MinFlag, Flagged);
    } else if (Trial < 5) {
      std::printf("trial %d: ok, %zu of %zu claims flagged, split at %u\n",
                  Trial, Flagged, N, Flagged ? MinFlag : unsigned(N));
    }
  }
  std::printf("mixed-size probe: %d trials, %d with the write mid-run, %d failed\n",
              Trials, Split, Bad);
  return Bad ? 1 : 0;
}
