//===- wait_probe.cu - Does a blocked stream hold up the others? ----------===//
//
// The CUDA docs warn that stream memory operations can deadlock through
// dependencies CUDA cannot see. A paused Baton launch leaves its user's
// stream waiting (cuStreamWaitValue32) on the device; if streams shared
// hardware queues first-in first-out, work pushed later on any stream of the
// same queue would wait behind it. This blocks one stream on a word that
// stays zero, pushes one piece of work (of each kind in turn) and an event
// on each of 39 other streams, and after 50 ms lists the streams whose
// event has not completed. Run with CUDA_MODULE_LOADING=EAGER (run.sh
// does): under lazy loading the first launch of `tiny` itself waits.
//
//===----------------------------------------------------------------------===//
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <string>
#include <unistd.h>
#include <signal.h>
#define CK(x) do { CUresult rr_ = (x); if (rr_ != CUDA_SUCCESS) { const char *s; cuGetErrorString(rr_, &s); printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, s); exit(1);} } while (0)

__global__ void tiny(int *p) { if (p) p[threadIdx.x] += 1; }

static const char *Stage = "start";
static void onAlarm(int) { printf("TIMEOUT in stage: %s\n", Stage); fflush(stdout); _exit(3); }

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  signal(SIGALRM, onAlarm);
  alarm(25);
  cudaFree(0);

  CUcontext c; CK(cuCtxGetCurrent(&c));
  const char *mc = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  printf("CUDA_DEVICE_MAX_CONNECTIONS=%s\n", mc ? mc : "(unset)");
  const int NS = 40;
  std::vector<CUstream> S(NS);
  for (auto &s : S) CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUdeviceptr Word; CK(cuMemAlloc(&Word, 4096));
  uint32_t *Pinned; CK(cuMemHostAlloc((void **)&Pinned, 4096, 0));
  int *Buf; cudaMalloc(&Buf, 4096);
  const char *Kinds[] = {"kernel", "write32", "memcpyHtoD", "memsetD32", "event-only", "wait-event-of-free-stream"};
  CUevent Free; CK(cuEventCreate(&Free, CU_EVENT_DISABLE_TIMING));
  for (int Blocker : {0, 7}) {
    for (int K = 0; K < 6; ++K) {
      Stage = "reset gate";
      CK(cuMemsetD32(Word + 4000, 0, 1));
      CK(cuCtxSynchronize());
      Stage = "push";
      CK(cuStreamWaitValue32(S[Blocker], Word + 4000, 1, CU_STREAM_WAIT_VALUE_GEQ));
      CK(cuEventRecord(Free, S[(Blocker + 1) % NS]));
      std::vector<CUevent> E(NS);
      for (int i = 0; i < NS; ++i) {
        CK(cuEventCreate(&E[i], CU_EVENT_DISABLE_TIMING));
        if (i == Blocker) continue;
        switch (K) {
        case 0: tiny<<<1, 1, 0, (cudaStream_t)S[i]>>>(Buf); break;
        case 1: CK(cuStreamWriteValue32(S[i], Word + 4 * i, 1, CU_STREAM_WRITE_VALUE_DEFAULT)); break;
        case 2: CK(cuMemcpyHtoDAsync(Word + 64 * i, Pinned, 64, S[i])); break;
        case 3: CK(cuMemsetD32Async(Word + 64 * i, 7, 16, S[i])); break;
        case 4: break;
        case 5: CK(cuStreamWaitEvent(S[i], Free, 0)); break;
        }
        CK(cuEventRecord(E[i], S[i]));
      }
      Stage = "query";
      usleep(50000);
      std::string Blocked;
      int N = 0;
      for (int i = 0; i < NS; ++i) {
        if (i == Blocker) continue;
        CUresult r = cuEventQuery(E[i]);
        if (r == CUDA_ERROR_NOT_READY) { Blocked += " " + std::to_string(i); ++N; }
        else CK(r);
      }
      printf("blocker stream %2d, %-26s: %2d of %d other streams held up:%s\n", Blocker, Kinds[K], N, NS - 1, Blocked.c_str());
      Stage = "release gate (synchronous memset)";
      CK(cuMemsetD32(Word + 4000, 1, 1));
      Stage = "synchronize after release";
      CK(cuCtxSynchronize());
      for (auto e : E) cuEventDestroy(e);
    }
  }
  return 0;
}
