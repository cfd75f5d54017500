//===- module_probe.cu - Does loading a module wait for a blocked stream? -===//
//
// A paused Baton launch leaves a stream S waiting in a cuStreamWaitValue32
// that only a later resume, from the host, releases. This probe blocks S
// that way (with a memset queued behind the wait), then loads the cubins
// named on the command line, each ROUNDS times without unloading, timing
// each load. A releaser thread writes the word from another stream after
// RELEASE_S seconds and times its own call. If a load waits for the device,
// it returns only after the release; if the release also waits for the
// load, nothing returns and the alarm reports where it hung.
//
//   module_probe ROUNDS RELEASE_S a.cubin b.cubin ...
//
//===----------------------------------------------------------------------===//
#include <cuda.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>
#define CK(x) do { CUresult rr_ = (x); if (rr_ != CUDA_SUCCESS) { const char *s; cuGetErrorString(rr_, &s); printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, s); exit(1);} } while (0)

static volatile int Loaded = 0;
static volatile int Released = 0;
static void onAlarm(int) {
  printf("  HUNG: %d modules loaded, release %s\n", Loaded,
         Released ? "returned" : "not returned");
  fflush(stdout);
  _exit(3);
}

static double secondsSince(std::chrono::steady_clock::time_point T) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T)
      .count();
}

int main(int Argc, char **Argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (Argc < 4) {
    fprintf(stderr, "usage: module_probe ROUNDS RELEASE_S CUBIN...\n");
    return 2;
  }
  int Rounds = atoi(Argv[1]);
  double ReleaseS = atof(Argv[2]);
  std::vector<std::string> Images;
  for (int I = 3; I < Argc; ++I) {
    std::ifstream In(Argv[I], std::ios::binary);
    Images.emplace_back(std::istreambuf_iterator<char>(In),
                        std::istreambuf_iterator<char>());
  }
  const char *Loading = getenv("CUDA_MODULE_LOADING");
  printf("CUDA_MODULE_LOADING=%s, %zu images x %d rounds, release after %.1f s\n",
         Loading ? Loading : "(unset)", Images.size(), Rounds, ReleaseS);
  signal(SIGALRM, onAlarm);
  alarm(unsigned(ReleaseS) + 30);
  CK(cuInit(0));
  CUdevice Dev;
  CK(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  CK(cuDevicePrimaryCtxRetain(&Ctx, Dev));
  CK(cuCtxSetCurrent(Ctx));
  CUdeviceptr Word, Counter;
  CK(cuMemAlloc(&Word, 4));
  CK(cuMemAlloc(&Counter, 4));
  CK(cuMemsetD32(Word, 0, 1));
  CK(cuMemsetD32(Counter, 0, 1));
  CUstream S, Other;
  CK(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING));
  CK(cuStreamCreate(&Other, CU_STREAM_NON_BLOCKING));
  CK(cuStreamWaitValue32(S, Word, 1, CU_STREAM_WAIT_VALUE_GEQ));
  CK(cuMemsetD32Async(Counter, 7, 1, S));
  usleep(10000);
  auto Start = std::chrono::steady_clock::now();
  std::thread Releaser([&] {
    std::this_thread::sleep_for(std::chrono::duration<double>(ReleaseS));
    auto T = std::chrono::steady_clock::now();
    CK(cuCtxSetCurrent(Ctx));
    CK(cuStreamWriteValue32(Other, Word, 1, 0));
    Released = 1;
    printf("  release call returned in %.3f s (at %.3f s)\n", secondsSince(T),
           secondsSince(Start));
  });
  printf("  S blocked; loading\n");
  double Slowest = 0;
  int SlowestAt = -1;
  for (int R = 0; R < Rounds; ++R)
    for (size_t I = 0; I < Images.size(); ++I) {
      auto T = std::chrono::steady_clock::now();
      CUmodule M;
      CK(cuModuleLoadData(&M, Images[I].data()));
      double S = secondsSince(T);
      if (S > Slowest)
        Slowest = S, SlowestAt = Loaded;
      if (S > 0.05 || Loaded < 2)
        printf("  load %d (%s) took %.3f s, returned at %.3f s\n", Loaded,
               Argv[3 + I], S, secondsSince(Start));
      ++Loaded;
    }
  printf("  %d loads done at %.3f s; slowest %.3f s (load %d); release %s\n",
         Loaded, secondsSince(Start), Slowest, SlowestAt,
         Released ? "already made" : "not yet made");
  Releaser.join();
  CK(cuStreamSynchronize(S));
  printf("  stream released, the memset behind the wait ran\n");
  return 0;
}
