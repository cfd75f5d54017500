//===- runtime_hostile.cpp - The runtime under misuse and failure ---------===//
//
// Usage: runtime_hostile RECORD_BATON_PTX FAULT_BATON_PTX
//
// Cases (issue: robustness of the runtime), each must end in a clear result,
// never a hang (a watchdog aborts after a minute) or a lost block:
//  * pause() of a launch that already finished returns false (Done), and
//    resume() of it is an InvalidState error that says so;
//  * many launches paused at once, from several threads, then resumed with
//    another worker count each time (as a scheduler shrinks and grows
//    best-effort work): every block of every launch runs exactly once;
//  * a kernel that faults while it runs as PTB workers: wait() throws a
//    baton::Error naming the kernel and the CUDA error. A fault poisons the
//    CUDA context, so it runs in a child process (this program with
//    --fault), while the parent keeps pausing and resuming launches of its
//    own, which must all complete exactly once;
//  * the first PTB launch of a process starts paused (as the scheduler
//    starts work it holds back) and is resumed later, under lazy module
//    loading (child process, --first-paused, CUDA_MODULE_LOADING=LAZY): the
//    runtime's own kernels were loaded when it was created, so their first
//    launch does not wait for a device whose user stream is blocked;
//  * a runtime with two private streams (child process, --few-streams):
//    launches give theirs back when they complete, and with both held a new
//    launch is refused with a clear error instead of creating a stream,
//    which could wait for a paused launch forever;
//  * resume() after the context was reset (child process, --reset): a clear
//    baton::Error saying the context is gone, no crash, no hang. The paused
//    launch is cancelled first: cuDevicePrimaryCtxReset waits for every
//    stream, and the stream of a paused launch waits for its done word, so
//    a reset with a launch still paused never returns (seen on the H200;
//    docs/robustness.md).
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>

extern char **environ;

using namespace baton;
using namespace baton::test;
using baton::detail::driver;

namespace {

std::string checkAllOnce(const std::vector<uint8_t> &Bytes) {
  const uint32_t *C = reinterpret_cast<const uint32_t *>(Bytes.data());
  size_t N = Bytes.size() / 4, Bad = 0, First = 0;
  for (size_t I = 0; I < N; ++I)
    if (C[I] != 1 && Bad++ == 0)
      First = I;
  if (!Bad)
    return {};
  return std::to_string(Bad) + " blocks ran other than once (first: block " +
         std::to_string(First) + ", " + std::to_string(C[First]) + " times)";
}

struct RecordLaunch {
  RecordLaunch(Runtime &Rt, const Kernel &K, Dim3 Grid, uint64_t SpinNs,
               bool StartPaused = false)
      : Counts(size_t(Grid.x) * Grid.y * Grid.z * 4), Spin(SpinNs) {
    Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
    LaunchConfig C;
    C.Grid = Grid;
    C.Block = {64, 1, 1};
    C.Stream = S.get();
    C.LaunchMode = Mode::Ptb;
    C.StartPaused = StartPaused;
    void *Args[] = {Counts.slot(), &Spin};
    L.emplace(Rt.launch(K, C, Args));
    FullWidth = L->width();
  }
  Stream S;
  DeviceBuffer Counts;
  uint64_t Spin;
  std::optional<Launch> L;
  uint32_t FullWidth = 0;
};

void pauseFinishedLaunch(Runtime &Rt, const Kernel &K, Checker &Check) {
  RecordLaunch R(Rt, K, {64, 1, 1}, 0);
  Check.expect(R.L->wait() == LaunchState::Done, "short launch completes");
  Check.expect(!R.L->pause(), "pause() of a finished launch returns false");
  Check.expect(R.L->state() == LaunchState::Done,
               "a finished launch stays Done after pause()");
  try {
    R.L->resume();
    Check.fail("resume() of a finished launch did not throw");
  } catch (const Error &E) {
    Check.expect(E.kind() == ErrorKind::InvalidState,
                 std::string("resume() of a finished launch: ") + E.what());
    std::printf("ok   resume() of a finished launch: %s\n", E.what());
  }
  Check.expect(checkAllOnce(R.Counts.download(R.S.get())).empty(),
               "finished launch ran every block once");
}

/// Pauses and resumes \p Launches from \p Threads threads at once, Rounds
/// times, then checks every block of every launch ran exactly once.
void manyPausedAtOnce(Runtime &Rt, const Kernel &K, Checker &Check,
                      unsigned Count, unsigned Rounds) {
  std::vector<std::unique_ptr<RecordLaunch>> Ls;
  for (unsigned I = 0; I < Count; ++I)
    // ~140000 blocks of 20 us each: milliseconds per launch, so pauses land.
    Ls.push_back(
        std::make_unique<RecordLaunch>(Rt, K, Dim3{20000, 7, 1}, 20000));
  unsigned Paused = 0;
  for (unsigned Round = 0; Round < Rounds; ++Round) {
    std::vector<std::thread> Threads;
    std::vector<int> Stopped(Count, 0);
    for (unsigned T = 0; T < 4; ++T)
      Threads.emplace_back([&, T] {
        for (unsigned I = T; I < Count; I += 4)
          Stopped[I] = Ls[I]->L->pause();
      });
    for (std::thread &Th : Threads)
      Th.join();
    for (unsigned I = 0; I < Count; ++I)
      if (Stopped[I]) {
        ++Paused;
        Check.expect(Ls[I]->L->state() == LaunchState::Paused,
                     "a launch that pause() stopped is Paused");
        uint32_t Width = 1 + (Round * 977 + I * 131) % Ls[I]->FullWidth;
        Ls[I]->L->resume(Width);
        Check.expect(Ls[I]->L->width() == Width,
                     "resume(width) relaunches with that many workers");
      }
    sleepMicros(200);
  }
  std::string Errors;
  for (auto &R : Ls) {
    Check.expect(R->L->wait() == LaunchState::Done, "resumed launch completes");
    std::string E = checkAllOnce(R->Counts.download(R->S.get()));
    if (!E.empty())
      Errors += E + "; ";
  }
  Check.expect(Errors.empty(), "many paused launches: " + Errors);
  std::printf("%-4s %u launches paused and resumed together, %u pauses\n",
              Errors.empty() ? "ok" : "FAIL", Count, Paused);
}

/// Child mode: a PTB launch of the faulting kernel. Exit 0 if wait() threw
/// a clear error, 1 otherwise.
int faultChild(const char *FaultPtx) {
  auto Rt = runtimeOrSkip();
  if (!Rt)
    return SkipExitCode;
  Module M = Rt->loadFile(FaultPtx);
  Kernel K = M.kernel("fault_in_block");
  Stream S;
  DeviceBuffer Counts(20000 * 4);
  uint32_t Victim = 12345;
  CUdeviceptr Bad = 0x10; // no allocation is mapped there
  LaunchConfig C;
  C.Grid = {20000, 1, 1};
  C.Block = {32, 1, 1};
  C.Stream = S.get();
  C.LaunchMode = Mode::Ptb;
  void *Args[] = {Counts.slot(), &Victim, &Bad};
  try {
    Launch L = Rt->launch(K, C, Args);
    L.wait();
    std::printf("child: the faulting launch reported no error\n");
    return 1;
  } catch (const Error &E) {
    std::printf("child: %s\n", E.what());
    bool Named = std::strstr(E.what(), "fault_in_block") != nullptr;
    return E.kind() == ErrorKind::Cuda && Named ? 0 : 1;
  }
}

/// Child mode: pause a launch, cancel it (a reset waits for every stream, and
/// the paused launch holds its own), reset the primary context under the
/// runtime, then resume. Exit 0 if resume() threw a baton::Error saying the
/// context is gone, and nothing hung.
int resetChild(const char *RecordPtx) {
  auto Rt = runtimeOrSkip();
  if (!Rt)
    return SkipExitCode;
  Module M = Rt->loadFile(RecordPtx);
  Kernel K = M.kernel("record");
  // 4M blocks of 20 us take about 19 ms at full width on an H100, far past
  // the pause at 2 ms (400k blocks took 1.9 ms there and once finished first).
  auto R =
      std::make_unique<RecordLaunch>(*Rt, K, Dim3{4000000, 1, 1}, 20000);
  sleepMicros(2000);
  if (!R->L->pause()) {
    std::printf("child: launch finished before the pause\n");
    return 1;
  }
  R->L->cancel();
  CUdevice Dev;
  check(driver().cuDeviceGet(&Dev, 0), "cuDeviceGet");
  std::fprintf(stderr, "child: paused and cancelled; resetting the primary "
                       "context\n");
  check(driver().cuDevicePrimaryCtxReset(Dev), "cuDevicePrimaryCtxReset");
  std::fprintf(stderr, "child: reset returned; resuming\n");
  try {
    R->L->resume();
    std::printf("child: resume after a context reset reported no error\n");
    return 1;
  } catch (const Error &E) {
    std::printf("child: %s\n", E.what());
    if (!std::strstr(E.what(), "was reset or destroyed"))
      return 1;
  }
  // The objects' destructors run against a dead context: they must not
  // crash or hang either.
  R.release(); // leaked on purpose: its stream and buffer died with the context
  return 0;
}

/// Child mode: the process's first PTB launch starts paused, its stream
/// waiting behind it; then the launch is resumed. Exit 0 if it completes with
/// every block once.
int firstPausedChild(const char *RecordPtx) {
  auto Rt = runtimeOrSkip();
  if (!Rt)
    return SkipExitCode;
  Module M = Rt->loadFile(RecordPtx);
  Kernel K = M.kernel("record");
  RecordLaunch R(*Rt, K, {4096, 1, 1}, 1000, /*StartPaused=*/true);
  sleepMicros(2000);
  R.L->resume();
  if (R.L->wait() != LaunchState::Done) {
    std::printf("child: the resumed launch did not complete\n");
    return 1;
  }
  std::string E = checkAllOnce(R.Counts.download(R.S.get()));
  std::printf("child: first launch started paused, resumed: %s\n",
              E.empty() ? "every block once" : E.c_str());
  return E.empty() ? 0 : 1;
}

/// Child mode: a runtime with two private streams. Launches that complete
/// give their stream back even while their handles live; with both streams
/// held by running launches, a third launch fails at once with an error
/// naming RuntimeOptions::PrivateStreams (a stream created then could wait
/// for a paused launch forever), runs nothing and leaves its stream free,
/// and the launches holding the streams complete. Exit 0 if all holds.
int fewStreamsChild(const char *RecordPtx) {
  RuntimeOptions Options;
  Options.PrivateStreams = 2;
  auto Rt = runtimeOrSkip(Options);
  if (!Rt)
    return SkipExitCode;
  Module M = Rt->loadFile(RecordPtx);
  Kernel K = M.kernel("record");
  int Failures = 0;
  auto expect = [&](bool Ok, const char *What) {
    std::printf("child: %-4s %s\n", Ok ? "ok" : "FAIL", What);
    Failures += !Ok;
  };
  std::vector<std::unique_ptr<RecordLaunch>> Finished;
  for (int I = 0; I < 5; ++I) {
    Finished.push_back(
        std::make_unique<RecordLaunch>(*Rt, K, Dim3{2048, 1, 1}, 1000));
    Finished.back()->L->wait();
  }
  expect(true, "5 launches in turn, handles kept, on 2 private streams");
  // ~140000 blocks of 20 us each: they run while the third one is tried.
  RecordLaunch First(*Rt, K, {20000, 7, 1}, 20000);
  RecordLaunch Second(*Rt, K, {20000, 7, 1}, 20000);
  Stream S;
  DeviceBuffer Counts(4096 * 4);
  Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
  uint64_t Spin = 0;
  void *Args[] = {Counts.slot(), &Spin};
  LaunchConfig C{{4096, 1, 1}, {64, 1, 1}, 0, S.get(), Mode::Ptb};
  try {
    Launch Third = Rt->launch(K, C, Args);
    Third.wait();
    expect(false, "a third launch with both streams held was refused");
  } catch (const Error &E) {
    std::printf("child: %s\n", E.what());
    expect(E.kind() == ErrorKind::InvalidState &&
               std::strstr(E.what(), "RuntimeOptions::PrivateStreams"),
           "a third launch with both streams held was refused");
  }
  std::vector<uint8_t> Untouched = Counts.download(S.get());
  expect(std::all_of(Untouched.begin(), Untouched.end(),
                     [](uint8_t B) { return B == 0; }),
         "the refused launch ran no block, and its stream went on");
  for (RecordLaunch *R : {&First, &Second})
    expect(R->L->wait() == LaunchState::Done &&
               checkAllOnce(R->Counts.download(R->S.get())).empty(),
           "a launch holding a stream completed, every block once");
  for (auto &R : Finished)
    Failures += !checkAllOnce(R->Counts.download(R->S.get())).empty();
  RecordLaunch After(*Rt, K, {2048, 1, 1}, 1000);
  expect(After.L->wait() == LaunchState::Done &&
             checkAllOnce(After.Counts.download(After.S.get())).empty(),
         "once they completed, a launch got a stream again");
  return Failures ? 1 : 0;
}

/// Runs this program in \p Mode in a child process; its exit status, or
/// 128 + signal, or -2 if it was killed after \p LimitS seconds.
int runChild(const char *Self, const char *Mode, const char *Ptx,
             int LimitS = 60) {
  pid_t Pid;
  char *Argv[] = {const_cast<char *>(Self), const_cast<char *>(Mode),
                  const_cast<char *>(Ptx), nullptr};
  if (posix_spawn(&Pid, "/proc/self/exe", nullptr, nullptr, Argv, environ))
    return -1;
  int Status = 0;
  for (int Tenths = 0; Tenths < LimitS * 10; ++Tenths) {
    if (waitpid(Pid, &Status, WNOHANG) == Pid)
      return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
    sleepMicros(100000);
  }
  kill(Pid, SIGKILL);
  waitpid(Pid, &Status, 0);
  return -2;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc == 3 && std::strcmp(Argv[1], "--fault") == 0)
    return faultChild(Argv[2]);
  if (Argc == 3 && std::strcmp(Argv[1], "--reset") == 0)
    return resetChild(Argv[2]);
  if (Argc == 3 && std::strcmp(Argv[1], "--first-paused") == 0)
    return firstPausedChild(Argv[2]);
  if (Argc == 3 && std::strcmp(Argv[1], "--few-streams") == 0)
    return fewStreamsChild(Argv[2]);
  if (Argc != 3) {
    std::fprintf(stderr, "usage: runtime_hostile RECORD_PTX FAULT_PTX\n");
    return 2;
  }
  Watchdog Dog("runtime_hostile", std::chrono::seconds(120));
  Checker Check;
  try {
    auto Rt = runtimeOrSkip();
    if (!Rt)
      return SkipExitCode;
    std::printf("device: %s\n", describeDevice(*Rt).c_str());
    Module M = Rt->loadFile(Argv[1]);
    Kernel K = M.kernel("record");

    Dog.step("pause of a finished launch");
    pauseFinishedLaunch(*Rt, K, Check);

    Dog.step("many launches paused at once");
    manyPausedAtOnce(*Rt, K, Check, 24, 20);

    // A fault in another process, while this one pauses and resumes.
    Dog.step("faulting PTB launch in a child, storms here");
    int FaultRc = -1;
    std::thread Child([&] { FaultRc = runChild(Argv[0], "--fault", Argv[2]); });
    manyPausedAtOnce(*Rt, K, Check, 8, 40);
    Child.join();
    Check.expect(FaultRc == 0, "faulting PTB launch: child exit " +
                                   std::to_string(FaultRc) +
                                   " (0: a clear baton::Error naming the kernel)");
    std::printf("%-4s faulting PTB launch in a child process\n",
                FaultRc == 0 ? "ok" : "FAIL");

    Dog.step("first launch started paused, in a child");
    setenv("CUDA_MODULE_LOADING", "LAZY", /*overwrite=*/1);
    int FirstRc = runChild(Argv[0], "--first-paused", Argv[1], /*LimitS=*/20);
    Check.expect(FirstRc == 0, "first launch started paused: child exit " +
                                   std::to_string(FirstRc) + " (-2: it hung)");
    std::printf("%-4s first PTB launch of a process started paused, then "
                "resumed\n",
                FirstRc == 0 ? "ok" : "FAIL");

    Dog.step("two private streams, in a child");
    int FewRc = runChild(Argv[0], "--few-streams", Argv[1], /*LimitS=*/30);
    Check.expect(FewRc == 0, "two private streams: child exit " +
                                 std::to_string(FewRc) + " (-2: it hung)");
    std::printf("%-4s a runtime with two private streams: given back when "
                "launches complete, a clear error when none is free\n",
                FewRc == 0 ? "ok" : "FAIL");

    Dog.step("resume after a context reset, in a child");
    int ResetRc = runChild(Argv[0], "--reset", Argv[1], /*LimitS=*/15);
    Check.expect(ResetRc == 0, "resume after a context reset: child exit " +
                                   std::to_string(ResetRc) +
                                   " (0: a clear baton::Error; -2: it hung)");
    std::printf("%-4s resume after a context reset in a child process\n",
                ResetRc == 0 ? "ok" : "FAIL");
  } catch (const Error &E) {
    Check.fail(std::string("unexpected error: ") + E.what());
  }
  return Check.summary();
}
