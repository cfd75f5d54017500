//===- blocked_probe.cu - How many waiting streams stall the device? ------===//
//
// A paused Baton launch leaves its user's stream waiting on the device
// (cuStreamWaitValue32). wait_probe.cu showed that one waiting stream holds
// up no other stream. This probe blocks NB streams at once (NB = 1, 4, 7, 8,
// 24), each after a given history (no kernel; a one-thread kernel long
// before; one just before the wait; a 2 ms spin just before), then pushes a
// kernel and an event on each of 24 other streams and, after 50 ms, lists
// the ones not done. With the argument 1 the two sets of streams are created
// alternately (B0 O0 B1 O1 ...) instead of blockers first. Once as many
// streams wait as the driver has hardware queues (CUDA_DEVICE_MAX_CONNECTIONS)
// nothing else starts, the release of the gate included: the probe then
// stops on its alarm ("TIMEOUT in stage: release").
//
//===----------------------------------------------------------------------===//
#include <cuda.h>
#include <cuda_runtime.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>
#define CK(x) do { CUresult rr_ = (x); if (rr_ != CUDA_SUCCESS) { const char *s; cuGetErrorString(rr_, &s); printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, s); exit(1);} } while (0)
__global__ void tiny(int *p) { if (p) p[threadIdx.x] += 1; }
__global__ void spin(long long ns) {
  long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}
static const char *Stage = "start";
static void onAlarm(int) { printf("TIMEOUT in stage: %s\n", Stage); fflush(stdout); _exit(3); }
int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  signal(SIGALRM, onAlarm);
  alarm(40);
  cudaFree(0);
  const char *mc = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  printf("CUDA_DEVICE_MAX_CONNECTIONS=%s\n", mc ? mc : "(unset)");
  CUdeviceptr Word; CK(cuMemAlloc(&Word, 4096));
  int *Buf; cudaMalloc(&Buf, 4096);
  const char *Hist[] = {"no kernel", "kernel long before", "tiny just before", "2 ms spin just before"};
  const bool Alt = argc > 1 && atoi(argv[1]);
  printf("streams created %s\n", Alt ? "alternately (B0 O0 B1 O1 ...)" : "blockers first");
  for (int NB : {1, 4, 7, 8, 24}) {
    for (int H = 0; H < 4; ++H) {
      std::vector<CUstream> B(NB), O(24);
      for (int i = 0; i < 24 || i < NB; ++i) {
        if (i < NB) CK(cuStreamCreate(&B[i], CU_STREAM_NON_BLOCKING));
        if (Alt && i < 24) CK(cuStreamCreate(&O[i], CU_STREAM_NON_BLOCKING));
      }
      if (!Alt)
        for (auto &s : O) CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
      if (H == 1) {
        for (auto s : B) tiny<<<1, 1, 0, (cudaStream_t)s>>>(Buf);
        CK(cuCtxSynchronize());
      }
      CK(cuMemsetD32(Word, 0, 1));
      CK(cuCtxSynchronize());
      Stage = "push blockers";
      for (auto s : B) {
        if (H == 2) tiny<<<1, 1, 0, (cudaStream_t)s>>>(Buf);
        if (H == 3) spin<<<1, 1, 0, (cudaStream_t)s>>>(2000000);
        CK(cuStreamWaitValue32(s, Word, 1, CU_STREAM_WAIT_VALUE_GEQ));
      }
      usleep(5000);
      std::vector<CUevent> E(O.size());
      for (size_t i = 0; i < O.size(); ++i) {
        CK(cuEventCreate(&E[i], CU_EVENT_DISABLE_TIMING));
        tiny<<<1, 1, 0, (cudaStream_t)O[i]>>>(Buf);
        CK(cuEventRecord(E[i], O[i]));
      }
      Stage = "query";
      usleep(50000);
      std::string Blocked;
      int N = 0;
      for (size_t i = 0; i < O.size(); ++i) {
        CUresult r = cuEventQuery(E[i]);
        if (r == CUDA_ERROR_NOT_READY) { Blocked += " " + std::to_string(i); ++N; } else CK(r);
      }
      printf("%2d blocked (%-22s): %2d of %zu later streams held up:%s\n", NB, Hist[H], N, O.size(), Blocked.c_str());
      Stage = "release";
      CK(cuMemsetD32(Word, 1, 1));
      CK(cuCtxSynchronize());
      for (auto e : E) cuEventDestroy(e);
      for (auto s : B) cuStreamDestroy(s);
      for (auto s : O) cuStreamDestroy(s);
    }
  }
  printf("probe end\n");
  return 0;
}
