// Forty-first session: does recursive_fib's PTB variant compute what the
// original does, and finish? Driver API only, no runtime.
//
//   fib_check MODULE THREADS WORKERS
//
// Runs recursive_fib on 97 blocks of THREADS threads, then
// recursive_fib__baton_ptb with WORKERS workers over the same 97 virtual
// blocks, and compares every output word. Exit status: 0 equal, 1 a CUDA
// error, 3 hung (5 s), 4 outputs differ.
#include "baton/task.h"

#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#define CK(X)                                                                  \
  do {                                                                         \
    CUresult R_ = (X);                                                         \
    if (R_ != CUDA_SUCCESS) {                                                  \
      const char *S_ = nullptr;                                                \
      cuGetErrorString(R_, &S_);                                               \
      std::printf("%s: %s\n", #X, S_ ? S_ : "?");                              \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

using Clock = std::chrono::steady_clock;

/// Waits up to 5 s for S; false if it is still busy.
static bool finishes(CUstream S) {
  auto T = Clock::now();
  while (Clock::now() - T < std::chrono::seconds(5)) {
    CUresult R = cuStreamQuery(S);
    if (R == CUDA_SUCCESS)
      return true;
    if (R != CUDA_ERROR_NOT_READY)
      CK(R);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

int main(int Argc, char **Argv) {
  if (Argc != 4)
    return std::printf("usage: fib_check MODULE THREADS WORKERS\n"), 2;
  const unsigned Threads = std::atoi(Argv[2]), Workers = std::atoi(Argv[3]);
  const unsigned Blocks = 97;
  CK(cuInit(0));
  CUdevice Dev;
  CK(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  CK(cuDevicePrimaryCtxRetain(&Ctx, Dev));
  CK(cuCtxSetCurrent(Ctx));
  std::ifstream In(Argv[1]);
  std::stringstream Text;
  Text << In.rdbuf();
  CUmodule M;
  CK(cuModuleLoadData(&M, Text.str().c_str()));
  CUfunction Original, Ptb;
  CK(cuModuleGetFunction(&Original, M, "recursive_fib"));
  CK(cuModuleGetFunction(&Ptb, M, "recursive_fib__baton_ptb"));
  CUstream S;
  CK(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING));

  const size_t Words = size_t(Blocks) * Threads;
  uint32_t *Out = nullptr;
  baton_task *Task = nullptr;
  CK(cuMemHostAlloc(reinterpret_cast<void **>(&Out), Words * 4,
                    CU_MEMHOSTALLOC_DEVICEMAP));
  CK(cuMemHostAlloc(reinterpret_cast<void **>(&Task), BATON_TASK_SIZE,
                    CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr OutD, TaskD;
  CK(cuMemHostGetDevicePointer(&OutD, Out, 0));
  CK(cuMemHostGetDevicePointer(&TaskD, Task, 0));

  std::memset(Out, 0xff, Words * 4);
  void *OriginalArgs[] = {&OutD};
  CK(cuLaunchKernel(Original, Blocks, 1, 1, Threads, 1, 1, 0, S, OriginalArgs,
                    nullptr));
  if (!finishes(S))
    return std::printf("original HUNG\n"), 3;
  std::vector<uint32_t> Expected(Out, Out + Words);

  baton_task Fresh = {};
  Fresh.grid_x = Blocks;
  Fresh.grid_y = Fresh.grid_z = 1;
  Fresh.end = Blocks;
  Fresh.claim_chunk = 1;
  std::memcpy(Task, &Fresh, sizeof(Fresh));
  std::memset(Out, 0xff, Words * 4);
  void *PtbArgs[] = {&OutD, &TaskD};
  CK(cuLaunchKernel(Ptb, Workers, 1, 1, Threads, 1, 1,
                    BATON_PTB_DYNAMIC_SHARED_BYTES, S, PtbArgs, nullptr));
  if (!finishes(S)) {
    unsigned Written = 0;
    for (size_t I = 0; I < Words; ++I)
      Written += reinterpret_cast<volatile uint32_t *>(Out)[I] != 0xffffffffu;
    return std::printf("ptb HUNG: cursor %u, %u of %zu words written\n",
                       reinterpret_cast<volatile baton_task *>(Task)->next,
                       Written, Words),
           3;
  }
  size_t Wrong = 0;
  std::string Blocks01; // one character per block: '.' right, 'x' wrong
  for (unsigned B = 0; B < Blocks; ++B) {
    size_t InBlock = 0;
    for (unsigned I = 0; I < Threads; ++I)
      InBlock += Out[B * Threads + I] != Expected[B * Threads + I];
    Wrong += InBlock;
    Blocks01 += InBlock ? 'x' : '.';
  }
  std::printf("ptb %s: %zu of %zu words differ; blocks %s\n",
              Wrong ? "WRONG" : "equal", Wrong, Words, Blocks01.c_str());
  return Wrong ? 4 : 0;
}
