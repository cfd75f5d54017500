// Fortieth session, calls e and f: does recursive_fib's PTB variant hang by
// itself, or only beside a stream that waits on a host-written word (as a
// user's stream waits for the runtime's Done word)? Driver API only, no
// runtime.
//
//   fib_probe MODULE plain [THREADS]  original, then the PTB variant with 3
//                             workers of THREADS threads (128)
//   fib_probe MODULE blocked  the same, but the PTB variant is launched while
//                             another stream waits on a word the host writes
//                             3 s later; prints how long cuLaunchKernel took
//
// The task and the output live in mapped host memory, so a hung run still
// shows how far its cursor got and which blocks wrote their output.
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
static double msSince(Clock::time_point T) {
  return std::chrono::duration<double, std::milli>(Clock::now() - T).count();
}

/// Waits up to 5 s for S; false if it is still busy.
static bool finishes(CUstream S) {
  auto T = Clock::now();
  while (msSince(T) < 5000) {
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
  if (Argc < 3)
    return std::printf("usage: fib_probe MODULE plain|blocked [THREADS]\n"), 2;
  bool Blocked = std::strcmp(Argv[2], "blocked") == 0;
  unsigned Threads = Argc > 3 ? std::atoi(Argv[3]) : 128;
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
  for (auto [Name, F] : {std::pair{"original", Original}, {"ptb", Ptb}}) {
    int Local = 0, Regs = 0;
    CK(cuFuncGetAttribute(&Local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, F));
    CK(cuFuncGetAttribute(&Regs, CU_FUNC_ATTRIBUTE_NUM_REGS, F));
    std::printf("%-8s local %d B, %d registers\n", Name, Local, Regs);
  }
  size_t Stack = 0;
  CK(cuCtxGetLimit(&Stack, CU_LIMIT_STACK_SIZE));
  std::printf("stack limit %zu B\n", Stack);

  CUstream Work, Waiter;
  CK(cuStreamCreate(&Work, CU_STREAM_NON_BLOCKING));
  CK(cuStreamCreate(&Waiter, CU_STREAM_NON_BLOCKING));
  const size_t OutWords = 97 * Threads;
  uint32_t *OutHost = nullptr;
  baton_task *TaskHost = nullptr;
  CK(cuMemHostAlloc(reinterpret_cast<void **>(&OutHost), OutWords * 4,
                    CU_MEMHOSTALLOC_DEVICEMAP));
  CK(cuMemHostAlloc(reinterpret_cast<void **>(&TaskHost), BATON_TASK_SIZE,
                    CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr Out, Task;
  CK(cuMemHostGetDevicePointer(&Out, OutHost, 0));
  CK(cuMemHostGetDevicePointer(&Task, TaskHost, 0));
  void *OriginalArgs[] = {&Out};
  auto T = Clock::now();
  CK(cuLaunchKernel(Original, 97, 1, 1, Threads, 1, 1, 0, Work, OriginalArgs,
                    nullptr));
  std::printf("original: %s after %.1f ms\n",
              finishes(Work) ? "done" : "HUNG", msSince(T));

  baton_task Fresh = {};
  Fresh.grid_x = 97;
  Fresh.grid_y = Fresh.grid_z = 1;
  Fresh.end = 97;
  Fresh.claim_chunk = 1;
  std::memcpy(TaskHost, &Fresh, sizeof(Fresh));
  std::memset(OutHost, 0xff, OutWords * 4);

  uint32_t *Word = nullptr;
  CUdeviceptr WordOnDevice = 0;
  std::thread Writer;
  if (Blocked) {
    CK(cuMemHostAlloc(reinterpret_cast<void **>(&Word), 4,
                      CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    *Word = 0;
    CK(cuMemHostGetDevicePointer(&WordOnDevice, Word, 0));
    CK(cuStreamWaitValue32(Waiter, WordOnDevice, 1, CU_STREAM_WAIT_VALUE_GEQ));
    Writer = std::thread([Word] {
      std::this_thread::sleep_for(std::chrono::seconds(3));
      *reinterpret_cast<volatile uint32_t *>(Word) = 1;
    });
  }
  void *PtbArgs[] = {&Out, &Task};
  T = Clock::now();
  CK(cuLaunchKernel(Ptb, 3, 1, 1, Threads, 1, 1,
                    BATON_PTB_DYNAMIC_SHARED_BYTES, Work, PtbArgs, nullptr));
  double LaunchMs = msSince(T);
  bool Done = finishes(Work);
  std::printf("ptb (3 workers of %u threads): cuLaunchKernel took %.1f ms; %s "
              "after %.1f ms\n",
              Threads, LaunchMs, Done ? "done" : "HUNG", msSince(T));
  if (Writer.joinable())
    Writer.join();
  const volatile baton_task &After = *TaskHost;
  unsigned BlocksWritten = 0, ThreadsWritten = 0;
  for (unsigned B = 0; B < 97; ++B) {
    unsigned N = 0;
    for (unsigned I = 0; I < Threads; ++I)
      N += reinterpret_cast<volatile uint32_t *>(OutHost)[B * Threads + I] !=
           0xffffffffu;
    BlocksWritten += N != 0;
    ThreadsWritten += N;
  }
  std::printf("cursor %u of %u, workers exited %u; %u blocks wrote (%u "
              "threads)\n",
              After.next, After.end, After.workers_exited, BlocksWritten,
              ThreadsWritten);
  return Done ? 0 : 3;
}
