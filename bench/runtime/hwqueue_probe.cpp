//===- hwqueue_probe.cpp - Which streams share a hardware queue -----------===//
//
// The runtime leaves streams waiting on the device (a user stream waits for
// a paused launch's `done` word), and work queued behind such a wait on the
// same hardware queue cannot start. This probe shows how the driver maps
// streams to hardware queues: for each blocker stream B it queues a wait on a
// host word on B, then on every other stream J a write of a host-mapped word
// (and a one-thread kernel), and reports the J whose work did not land within
// a few milliseconds while B was blocked.
//
//   hwqueue_probe [STREAMS]    (CUDA_DEVICE_MAX_CONNECTIONS is honoured)
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

void check(CUresult R, const char *Call) {
  if (R == CUDA_SUCCESS)
    return;
  const char *Name = nullptr;
  cuGetErrorName(R, &Name);
  std::fprintf(stderr, "hwqueue_probe: %s failed: %s\n", Call,
               Name ? Name : "?");
  std::exit(1);
}

const char *KernelPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry mark(.param .u64 p, .param .u32 v) {
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [v];
  st.volatile.global.u32 [%rd1], %r1;
  ret;
}
)";

/// Waits up to \p Ms for the host-visible word to become \p Want.
bool landed(volatile uint32_t *Word, uint32_t Want, int Ms) {
  auto Until = std::chrono::steady_clock::now() + std::chrono::milliseconds(Ms);
  while (std::chrono::steady_clock::now() < Until)
    if (*Word == Want)
      return true;
  return *Word == Want;
}

} // namespace

int main(int Argc, char **Argv) {
  int N = Argc > 1 ? std::atoi(Argv[1]) : 48;
  check(cuInit(0), "cuInit");
  CUdevice Dev;
  check(cuDeviceGet(&Dev, 0), "cuDeviceGet");
  CUcontext Ctx;
  check(cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(Ctx), "cuCtxSetCurrent");
  CUmodule Mod;
  CUfunction Mark;
  check(cuModuleLoadData(&Mod, KernelPtx), "cuModuleLoadData");
  check(cuModuleGetFunction(&Mark, Mod, "mark"), "cuModuleGetFunction");

  // Word 0 is the gate; words 1..N are the probes (memory op), N+1..2N the
  // kernels' marks.
  uint32_t *Host;
  check(cuMemHostAlloc(reinterpret_cast<void **>(&Host),
                       (2 * N + 1) * sizeof(uint32_t),
                       CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
        "cuMemHostAlloc");
  CUdeviceptr Dptr;
  check(cuMemHostGetDevicePointer(&Dptr, Host, 0), "cuMemHostGetDevicePointer");
  volatile uint32_t *Words = Host;

  int Least, Greatest;
  check(cuCtxGetStreamPriorityRange(&Least, &Greatest), "priority range");
  std::vector<CUstream> Streams(N);
  // The last quarter at the highest priority, to see whether priority
  // streams get queues of their own.
  for (int I = 0; I < N; ++I)
    check(cuStreamCreateWithPriority(&Streams[I], CU_STREAM_NON_BLOCKING,
                                     I >= N * 3 / 4 ? Greatest : Least),
          "cuStreamCreateWithPriority");

  const char *Conn = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  std::printf("streams %d (last %d high priority), "
              "CUDA_DEVICE_MAX_CONNECTIONS=%s\n",
              N, N - N * 3 / 4, Conn ? Conn : "(unset)");
  uint32_t Stamp = 1;
  std::vector<int> Blockers = {0, 1, 2, N * 3 / 4};
  for (int B : Blockers) {
    if (B >= N)
      continue;
    Words[0] = 0;
    check(cuStreamWaitValue32(Streams[B], Dptr, 1, CU_STREAM_WAIT_VALUE_EQ),
          "cuStreamWaitValue32");
    std::string Held, HeldKernels;
    for (int J = 0; J < N; ++J) {
      if (J == B)
        continue;
      ++Stamp;
      check(cuStreamWriteValue32(Streams[J], Dptr + 4 * (1 + J), Stamp,
                                 CU_STREAM_WRITE_VALUE_DEFAULT),
            "cuStreamWriteValue32");
      CUdeviceptr KernelWord = Dptr + 4 * (1 + N + J);
      void *Args[] = {&KernelWord, &Stamp};
      check(cuLaunchKernel(Mark, 1, 1, 1, 1, 1, 1, 0, Streams[J], Args,
                           nullptr),
            "cuLaunchKernel");
      if (!landed(&Words[1 + J], Stamp, 20))
        Held += " " + std::to_string(J);
      if (!landed(&Words[1 + N + J], Stamp, 20))
        HeldKernels += " " + std::to_string(J);
    }
    Words[0] = 1; // releases B and everything held behind it
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    std::printf("blocker %2d%s: memory ops held on streams [%s ], kernels "
                "held on [%s ]\n",
                B, B >= N * 3 / 4 ? " (high)" : "", Held.c_str(),
                HeldKernels.c_str());
  }
  return 0;
}
