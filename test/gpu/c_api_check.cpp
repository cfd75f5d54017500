//===- c_api_check.cpp - The C API end to end ------------------------------===//
//
// Usage: c_api_check RECORD_BATON_PTX
//
// Drives one PTB and one slice launch of `record` through baton.h only
// (device memory comes from the test harness), pausing and resuming each,
// and checks the status codes and messages of the error paths. The header is
// also compiled as C (c_api_header.c) so that it stays valid C.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"

#include "baton/baton.h"

#include <cstdio>
#include <cstring>

using namespace baton::test;
using baton::detail::driver;

extern "C" int baton_c_header_compiles(void);

static bool mentions(const char *Needle) {
  return std::strstr(baton_last_error(), Needle) != nullptr;
}

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    std::fprintf(stderr, "usage: %s RECORD_BATON_PTX\n", Argv[0]);
    return 2;
  }
  Checker Check;
  Check.expect(baton_c_header_compiles() == 1, "C translation unit");
  baton_runtime Rt = nullptr;
  baton_status St = baton_runtime_create(0, BATON_PREEMPT_STREAM_WRITE, &Rt);
  if (St == BATON_ERROR_DRIVER_UNAVAILABLE ||
      (St == BATON_ERROR_CUDA && mentions("CUDA_ERROR_NO_DEVICE"))) {
    std::printf("SKIPPED: no CUDA device (%s)\n", baton_last_error());
    return SkipExitCode;
  }
  Watchdog Dog("c_api_check", std::chrono::seconds(60));
  try {
    Check.expect(St == BATON_SUCCESS,
                 std::string("baton_runtime_create: ") + baton_last_error());
    CUcontext Ctx = nullptr;
    check(driver().cuDevicePrimaryCtxRetain(&Ctx, 0), "retain");
    check(driver().cuCtxSetCurrent(Ctx), "cuCtxSetCurrent");

    baton_module M = nullptr;
    Check.expect(baton_module_load_file(Rt, Argv[1], &M) == BATON_SUCCESS,
                 std::string("load: ") + baton_last_error());
    baton_kernel K = nullptr;
    Check.expect(baton_kernel_get(M, "no_such_kernel", &K) ==
                         BATON_ERROR_NOT_FOUND &&
                     mentions("no_such_kernel"),
                 "missing kernel: NOT_FOUND naming it");
    Check.expect(baton_kernel_get(M, "record", &K) == BATON_SUCCESS,
                 std::string("kernel: ") + baton_last_error());
    Check.expect(baton_kernel_has_variant(K, BATON_MODE_PTB) == 1 &&
                     baton_kernel_num_params(K) == 2,
                 "record has a PTB variant and 2 parameters");

    const uint32_t Blocks = 50000;
    Stream S;
    DeviceBuffer Counts(Blocks * sizeof(uint32_t));
    for (baton_mode Mode : {BATON_MODE_PTB, BATON_MODE_SLICES}) {
      Dog.step(Mode == BATON_MODE_PTB ? "ptb" : "slices");
      Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
      // 200 us a block: some 2.4 ms for all of them at full width, so that
      // the pause below, a host round trip later, finds them still running
      // (at 5 us a block the launch took about 60 us, and a pause issued
      // after a scheduling hiccup found it done: call h of the
      // thirty-second session).
      unsigned long long Spin = 200000;
      void *Args[] = {Counts.slot(), &Spin};
      baton_launch_config C = {};
      C.grid[0] = Blocks;
      C.grid[1] = C.grid[2] = 1;
      C.block[0] = 64;
      C.block[1] = C.block[2] = 1;
      C.stream = S.get();
      C.mode = Mode;
      baton_launch L = nullptr;
      Check.expect(baton_launch_kernel(Rt, K, &C, Args, 1, &L) ==
                           BATON_ERROR_INVALID_ARGUMENT &&
                       mentions("takes 2 arguments"),
                   "wrong argument count: INVALID_ARGUMENT");
      Check.expect(baton_launch_kernel(Rt, K, &C, Args, 2, &L) ==
                       BATON_SUCCESS,
                   std::string("launch: ") + baton_last_error());
      Check.expect(baton_launch_resume(L) == BATON_ERROR_INVALID_STATE,
                   "resume of a running launch: INVALID_STATE");
      int Paused = 0;
      Check.expect(baton_launch_pause(L, &Paused) == BATON_SUCCESS && Paused,
                   std::string("pause: ") + baton_last_error());
      uint32_t Done = 0, Total = 0;
      Check.expect(baton_launch_progress(L, &Done, &Total) == BATON_SUCCESS &&
                       Done < Total && Total == Blocks,
                   "progress while paused");
      Check.expect(baton_launch_resume(L) == BATON_SUCCESS,
                   std::string("resume: ") + baton_last_error());
      baton_launch_state State = BATON_LAUNCH_FAILED;
      Check.expect(baton_launch_wait(L, &State) == BATON_SUCCESS &&
                       State == BATON_LAUNCH_DONE,
                   "wait: done");
      baton_launch_destroy(L);
      std::vector<uint8_t> Host = Counts.download(S.get());
      const auto *N = reinterpret_cast<const uint32_t *>(Host.data());
      unsigned Wrong = 0;
      for (uint32_t I = 0; I < Blocks; ++I)
        Wrong += N[I] != 1;
      Check.expect(Wrong == 0, std::to_string(Wrong) +
                                   " blocks ran other than once through the "
                                   "C API");
    }
    baton_kernel_destroy(K);
    baton_module_destroy(M);
    driver().cuDevicePrimaryCtxRelease(0);
  } catch (const std::exception &E) {
    Check.fail(std::string("exception: ") + E.what());
  }
  baton_runtime_destroy(Rt);
  return Check.summary();
}
