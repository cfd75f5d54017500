//===- create_probe.cu - Which driver calls wait for a blocked stream? ----===//
//
// A paused Baton launch leaves its user's stream S blocked in a
// cuStreamWaitValue32 that only a later resume releases. This probe blocks
// S that way, then makes, one by one and in this order, the calls a runtime
// makes while launches are in flight: 64 cuEventCreate, 16 cuMemAlloc, 16
// cuMemHostAlloc, then up to 80 cuStreamCreate. It prints each group as it
// completes; a call that never returns is reported by the alarm with the
// group and the index reached. Run once per CUDA_DEVICE_MAX_CONNECTIONS.
//
//===----------------------------------------------------------------------===//
#include <cuda.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#define CK(x) do { CUresult rr_ = (x); if (rr_ != CUDA_SUCCESS) { const char *s; cuGetErrorString(rr_, &s); printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, s); exit(1);} } while (0)

static const char *Group = "set-up";
static volatile int Index = 0;
static void onAlarm(int) {
  printf("  HUNG in %s number %d\n", Group, Index);
  fflush(stdout);
  _exit(3);
}

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  signal(SIGALRM, onAlarm);
  const char *Mc = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  printf("CUDA_DEVICE_MAX_CONNECTIONS=%s\n", Mc ? Mc : "(unset)");
  CK(cuInit(0));
  CUdevice Dev;
  CK(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  CK(cuDevicePrimaryCtxRetain(&Ctx, Dev));
  CK(cuCtxSetCurrent(Ctx));
  CUdeviceptr Word;
  CK(cuMemAlloc(&Word, 4));
  CK(cuMemsetD32(Word, 0, 1));
  CUstream S;
  CK(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING));
  CK(cuStreamWaitValue32(S, Word, 1, CU_STREAM_WAIT_VALUE_GEQ));
  usleep(10000);
  alarm(20);
  Group = "cuEventCreate";
  for (Index = 0; Index < 64; ++Index) {
    CUevent E;
    CK(cuEventCreate(&E, CU_EVENT_DISABLE_TIMING));
  }
  printf("  64 cuEventCreate returned\n");
  Group = "cuMemAlloc";
  for (Index = 0; Index < 16; ++Index) {
    CUdeviceptr P;
    CK(cuMemAlloc(&P, 1 << 20));
  }
  printf("  16 cuMemAlloc returned\n");
  Group = "cuMemHostAlloc";
  for (Index = 0; Index < 16; ++Index) {
    void *P;
    CK(cuMemHostAlloc(&P, 1 << 16, CU_MEMHOSTALLOC_DEVICEMAP));
  }
  printf("  16 cuMemHostAlloc returned\n");
  Group = "cuStreamCreate";
  for (Index = 0; Index < 80; ++Index) {
    CUstream T;
    CK(cuStreamCreate(&T, CU_STREAM_NON_BLOCKING));
  }
  printf("  80 cuStreamCreate returned\n");
  Group = "the release of S";
  Index = 0;
  CK(cuMemsetD32(Word, 1, 1));
  CK(cuStreamSynchronize(S));
  printf("probe end\n");
  return 0;
}
