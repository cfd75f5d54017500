//===- share_gpu.cpp - Processes sharing a GPU, on a GPU ------------------===//
//
// Usage:
//   share_gpu check RECORD_BATON_PTX
//   share_gpu lc RECORD_BATON_PTX [--registry NAME] [--no-share]
//       [--seconds S] [--kernel-us N] [--blocks N] [--json FILE]
//   share_gpu be RECORD_BATON_PTX [--registry NAME] [--no-share]
//       [--seconds S] [--block-us N] [--blocks N] [--json FILE]
//       [--first-runs-on-user-stream] [--dependent-finalize]
//
// `check` is the GPU test (ctest gpu.share_check). It forks two
// latency-critical peers before CUDA is initialised (a forked child cannot
// use its parent's CUDA), one ending its work through the GPU's write into
// the registry and one through the event poll (BATON_SHARE_END=events),
// and is itself the best-effort side. Checked:
//  1. both ways of ending work on a stream: the BE side sees the LC work
//     outstanding while its kernel runs and over when the stream reaches
//     the end; printed: when, relative to the LC process's own
//     cuStreamSynchronize returning;
//  2. BE PTB launches pause while an LC peer runs requests, and every block
//     of both sides runs exactly once;
//  3. an LC peer killed (SIGKILL) while its work is outstanding releases the
//     paused BE work within 200 ms, and the BE work then completes.
// Without a device it prints SKIPPED and exits 77.
//
// `lc` and `be` run one side each (ShareLoad.h) for bench/share/run.sh:
// a summary line, and with --json the numbers as one JSON object.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"
#include "ShareLoad.h"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <utility>

using namespace baton;
using namespace baton::test;
using baton::detail::driver;

namespace {

//===-- Talking to a forked peer ------------------------------------------===//

bool sendAll(int Fd, const void *Data, size_t N) {
  const char *P = static_cast<const char *>(Data);
  while (N) {
    ssize_t W = write(Fd, P, N);
    if (W <= 0)
      return false;
    P += W;
    N -= size_t(W);
  }
  return true;
}

bool recvAll(int Fd, void *Data, size_t N) {
  char *P = static_cast<char *>(Data);
  while (N) {
    ssize_t R = read(Fd, P, N);
    if (R <= 0)
      return false;
    P += R;
    N -= size_t(R);
  }
  return true;
}

/// One end of a pair of pipes.
struct Channel {
  int In = -1, Out = -1;
  void send(char C) { sendAll(Out, &C, 1); }
  template <class T> void sendValue(const T &V) { sendAll(Out, &V, sizeof(V)); }
  char recv() {
    char C = 0;
    return recvAll(In, &C, 1) ? C : 0;
  }
  template <class T> T recvValue() {
    T V{};
    recvAll(In, &V, sizeof(V));
    return V;
  }
  bool readable() {
    pollfd P{In, POLLIN, 0};
    return poll(&P, 1, 0) > 0;
  }
};

struct Child {
  pid_t Pid = -1;
  Channel Talk;
};

Child spawn(const std::function<int(Channel &)> &Body) {
  int Down[2], Up[2];
  if (pipe(Down) != 0 || pipe(Up) != 0)
    throw std::runtime_error("pipe failed");
  std::fflush(stdout);
  Child C;
  C.Pid = fork();
  if (C.Pid < 0)
    throw std::runtime_error("fork failed");
  if (C.Pid == 0) {
    close(Down[1]);
    close(Up[0]);
    Channel Mine{Down[0], Up[1]};
    int Status = Body(Mine);
    std::fflush(stdout);
    _exit(Status);
  }
  close(Down[0]);
  close(Up[1]);
  C.Talk = {Up[0], Down[1]};
  return C;
}

int reap(Child &C) {
  int Status = 0;
  waitpid(C.Pid, &Status, 0);
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
}

//===-- The latency-critical peer of `check` ------------------------------===//

constexpr uint32_t LcBlocks = 264;

void require(baton_share_status S, const char *Call) {
  if (S != BATON_SHARE_OK)
    throw std::runtime_error(std::string(Call) + ": " +
                             baton_share_last_error());
}

/// How long the 'E' request's kernel spins. The BE side looks at the
/// registry right after 'q' and expects the request outstanding: the kernel
/// must outlast that look even when the BE process is descheduled for a
/// while (with 2 ms, one run on the H200 looked only after the LC's
/// synchronize had returned, 2.2 ms late).
constexpr uint64_t EndCheckSpinNs = 20'000'000;

/// Commands: 'E' one EndCheckSpinNs request, 'q' once queued, then 'd'
/// and the time its synchronize returned; 'L' requests (ShareLoad.h) until
/// 'x', then their count, blocks off, p50 and p99; 'K' a 300 ms request,
/// 'q', then nothing until killed; 'G' an end on a capturing stream, 'y' if
/// it was refused and the ticket could still be ended; anything else:
/// leave.
int lcPeer(Channel &Parent, const char *Ptx, const char *Registry,
           bool Events) {
  try {
    if (Events)
      setenv("BATON_SHARE_END", "events", 1);
    auto Rt = runtimeOrSkip();
    if (!Rt) {
      Parent.send('s');
      return 0;
    }
    Module M = Rt->loadFile(Ptx);
    Kernel K = M.kernel("record");
    baton_share S = nullptr;
    require(baton_share_join(Registry, 0, BATON_SHARE_LATENCY_CRITICAL,
                             Events ? "lc-event-poll" : "lc-gpu-write", &S),
            "baton_share_join");
    Parent.send('r');
    Stream St(/*Priority=*/-1);
    DeviceBuffer Counts(LcBlocks * sizeof(uint32_t));
    CUdeviceptr Ptr = Counts.get();
    auto Request = [&](uint64_t SpinNs) {
      uint64_t Ticket = 0;
      require(baton_share_announce(S, &Ticket), "baton_share_announce");
      void *Args[] = {&Ptr, &SpinNs};
      check(driver().cuLaunchKernel(K.function(Mode::Original), LcBlocks, 1,
                                    1, 64, 1, 1, 0, St.get(), Args, nullptr),
            "cuLaunchKernel");
      require(baton_share_end_on_stream(S, Ticket, St.get()),
              "baton_share_end_on_stream");
    };
    for (;;) {
      char C = Parent.recv();
      if (C == 'E') {
        Request(EndCheckSpinNs);
        Parent.send('q');
        St.synchronize();
        uint64_t Synced = monotonicNs();
        Parent.send('d');
        Parent.sendValue(Synced);
      } else if (C == 'L') {
        LcResult R = runLatencyCritical(K, S, LcOptions{},
                                        [&] { return Parent.readable(); });
        Parent.recv(); // 'x'
        Percentiles P = percentiles(R.LatencyUs);
        Parent.sendValue(uint64_t(R.LatencyUs.size()));
        Parent.sendValue(R.BlocksOff);
        Parent.sendValue(P.P50);
        Parent.sendValue(P.P99);
      } else if (C == 'K') {
        Request(300000000);
        Parent.send('q');
        for (;;)
          pause();
      } else if (C == 'G') {
        // An end on a stream that is capturing a graph would be captured:
        // refused, the ticket left for the host to end.
        uint64_t Ticket = 0;
        require(baton_share_announce(S, &Ticket), "baton_share_announce");
        check(driver().cuStreamBeginCapture(St.get(),
                                            CU_STREAM_CAPTURE_MODE_GLOBAL),
              "cuStreamBeginCapture");
        baton_share_status Refused =
            baton_share_end_on_stream(S, Ticket, St.get());
        CUgraph Graph = nullptr;
        check(driver().cuStreamEndCapture(St.get(), &Graph),
              "cuStreamEndCapture");
        check(driver().cuGraphDestroy(Graph), "cuGraphDestroy");
        bool Ended = baton_share_end(S, Ticket) == BATON_SHARE_OK;
        Parent.send(Refused == BATON_SHARE_ERROR_INVALID_ARGUMENT && Ended
                        ? 'y'
                        : 'n');
      } else {
        baton_share_leave(S);
        return 0;
      }
    }
  } catch (const std::exception &E) {
    std::printf("FAIL: LC peer: %s\n", E.what());
    Parent.send('f');
    return 1;
  }
}

//===-- The checks, from the best-effort side -----------------------------===//

uint64_t outstanding(baton_share Be) {
  uint64_t N = 0;
  require(baton_share_lc_outstanding(Be, &N), "baton_share_lc_outstanding");
  return N;
}

/// The registry's view of the process named \p Name.
baton_share_process processNamed(const std::string &Registry,
                                 const char *Name) {
  std::vector<baton_share_process> List(BATON_SHARE_MAX_PROCESSES);
  size_t N = 0;
  require(baton_share_list(Registry.c_str(), 0, List.data(), List.size(), &N),
          "baton_share_list");
  for (size_t I = 0; I < N; ++I)
    if (std::strcmp(List[I].name, Name) == 0)
      return List[I];
  throw std::runtime_error(std::string("no process named ") + Name);
}

/// Polls \p Done until it holds or \p LimitMs passes; the time it held, or
/// 0.
uint64_t waitUntil(const std::function<bool()> &Done, uint64_t LimitMs) {
  uint64_t Deadline = monotonicNs() + LimitMs * 1000000;
  while (monotonicNs() < Deadline)
    if (Done())
      return monotonicNs();
  return 0;
}

void checkEndOnStream(Checker &Check, Child &Lc, baton_share Be,
                      const std::string &Registry, const char *PeerName,
                      baton_share_end_path Expected) {
  std::string What = std::string("end on stream (") + PeerName + ")";
  Lc.Talk.send('E');
  if (Lc.Talk.recv() != 'q') {
    Check.fail(What + ": the LC peer did not queue its request");
    return;
  }
  bool Seen = outstanding(Be) == 1;
  uint64_t Over = waitUntil([&] { return outstanding(Be) == 0; }, 2000);
  bool Synced = Lc.Talk.recv() == 'd';
  uint64_t SyncedAt = Lc.Talk.recvValue<uint64_t>();
  Check.expect(Seen, What + ": the LC work was not outstanding while its " +
                            std::to_string(EndCheckSpinNs / 1000000) +
                            " ms kernel ran");
  Check.expect(Synced, What + ": the LC peer's synchronize failed");
  Check.expect(Over != 0, What + ": the end never reached the registry");
  double AfterUs = double(int64_t(Over - SyncedAt)) / 1000;
  if (Over && Synced) {
    std::printf("%s: the BE process saw the end %+.1f us from the LC "
                "process's cuStreamSynchronize return\n",
                What.c_str(), AfterUs);
    Check.expect(AfterUs < 2000, What + ": the end was seen more than 2 ms "
                                        "after the stream reached it");
  }
  baton_share_process P = processNamed(Registry, PeerName);
  Check.expect(P.end_path == Expected,
               What + ": the peer used end path " +
                   std::to_string(int(P.end_path)) + ", not " +
                   std::to_string(int(Expected)));
}

void checkPausing(Checker &Check, Runtime &Rt, const Kernel &K, Child &Lc,
                  baton_share Be, const std::string &Registry) {
  Lc.Talk.send('L');
  uint64_t Until = monotonicNs() + 3000000000ull;
  BeOptions O;
  O.Blocks = 1u << 18;
  BeResult R = runBestEffort(Rt, K, Be, O,
                             [&] { return monotonicNs() >= Until; });
  Lc.Talk.send('x');
  auto Requests = Lc.Talk.recvValue<uint64_t>();
  auto LcOff = Lc.Talk.recvValue<uint64_t>();
  auto P50 = Lc.Talk.recvValue<double>();
  auto P99 = Lc.Talk.recvValue<double>();
  Check.expect(R.BlocksOff == 0, std::to_string(R.BlocksOff) +
                                     " BE blocks ran other than once");
  Check.expect(LcOff == 0,
               std::to_string(LcOff) + " LC blocks ran other than once");
  Check.expect(Requests > 0, "no LC request completed");
  Check.expect(R.Stats.Pauses > 0,
               "BE launches were never paused for the LC peer's requests");
  baton_share_process P = processNamed(Registry, "share-check-be");
  Check.expect(P.be_pauses > 0 && P.be_resumes > 0,
               "the BE slot counted no pause or resume");
  std::printf("BE next to LC requests: %llu BE launches, %.3g blocks/s, "
              "%llu pauses, %llu resumes (registry: %llu yields); %llu LC "
              "requests, p50 %.0f us, p99 %.0f us\n",
              (unsigned long long)R.Launches, R.blocksPerSecond(O),
              (unsigned long long)R.Stats.Pauses,
              (unsigned long long)R.Stats.Resumes,
              (unsigned long long)P.be_pauses, (unsigned long long)Requests,
              P50, P99);
}

void checkKilledPeer(Checker &Check, Runtime &Rt, const Kernel &K, Child &Lc,
                     baton_share Be, const std::string &Registry) {
  Lc.Talk.send('K');
  if (Lc.Talk.recv() != 'q') {
    Check.fail("killed peer: the LC peer did not queue its request");
    return;
  }
  BeResult R;
  std::string Error;
  BeOptions O;
  O.Blocks = 1u << 18;
  std::thread BeThread([&] {
    try {
      check(driver().cuCtxSetCurrent(Rt.context()), "cuCtxSetCurrent");
      bool Submitted = false;
      R = runBestEffort(Rt, K, Be, O,
                        [&] { return std::exchange(Submitted, true); });
    } catch (const std::exception &E) {
      Error = E.what();
    }
  });
  bool Paused = waitUntil(
      [&] { return processNamed(Registry, "share-check-be").be_paused; },
      2000);
  uint64_t Killed = monotonicNs();
  kill(Lc.Pid, SIGKILL);
  uint64_t Released = waitUntil([&] { return outstanding(Be) == 0; }, 5000);
  BeThread.join();
  Check.expect(Paused, "killed peer: BE work did not yield to the LC peer's "
                       "outstanding work");
  Check.expect(Released != 0, "killed peer: BE was never released");
  double AfterMs = double(Released - Killed) / 1e6;
  if (Released) {
    std::printf("killed LC peer: BE released %.1f ms after SIGKILL\n",
                AfterMs);
    Check.expect(AfterMs < 200, "killed peer: BE released only after " +
                                    std::to_string(AfterMs) + " ms");
  }
  Check.expect(Error.empty(), "killed peer: BE: " + Error);
  Check.expect(R.BlocksOff == 0, "killed peer: " + std::to_string(R.BlocksOff) +
                                     " BE blocks ran other than once");
  Check.expect(reap(Lc) == -1, "killed peer: the LC peer was not killed");
}

int check(const char *Ptx) {
  Checker Check;
  const std::string Registry =
      "/baton-share-check-" + std::to_string(getpid());
  shm_unlink(Registry.c_str());
  struct Unlink {
    const std::string &Name;
    ~Unlink() { shm_unlink(Name.c_str()); }
  } Cleanup{Registry};
  // Both peers before this process touches CUDA.
  Child Gpu = spawn([&](Channel &C) {
    return lcPeer(C, Ptx, Registry.c_str(), /*Events=*/false);
  });
  Child Ev = spawn([&](Channel &C) {
    return lcPeer(C, Ptx, Registry.c_str(), /*Events=*/true);
  });
  char A = Gpu.Talk.recv(), B = Ev.Talk.recv();
  if (A == 's' || B == 's') { // the peers printed SKIPPED
    kill(Gpu.Pid, SIGKILL);
    kill(Ev.Pid, SIGKILL);
    reap(Gpu);
    reap(Ev);
    return SkipExitCode;
  }
  try {
    if (A != 'r' || B != 'r')
      throw std::runtime_error("an LC peer did not start");
    auto Rt = runtimeOrSkip();
    if (!Rt)
      return SkipExitCode;
    std::printf("share_check on %s\n", describeDevice(*Rt).c_str());
    Watchdog Dog("share_check", std::chrono::seconds(150));
    Module M = Rt->loadFile(Ptx);
    Kernel K = M.kernel("record");
    baton_share Be = nullptr;
    require(baton_share_join(Registry.c_str(), 0, BATON_SHARE_BEST_EFFORT,
                             "share-check-be", &Be),
            "baton_share_join");
    Dog.step("end on stream, GPU write");
    checkEndOnStream(Check, Gpu, Be, Registry, "lc-gpu-write",
                     BATON_SHARE_END_GPU_WRITE);
    Dog.step("end on stream, event poll");
    checkEndOnStream(Check, Ev, Be, Registry, "lc-event-poll",
                     BATON_SHARE_END_EVENT_POLL);
    Dog.step("end on a capturing stream");
    Gpu.Talk.send('G');
    Check.expect(Gpu.Talk.recv() == 'y',
                 "an end on a stream capturing a graph was not refused");
    Dog.step("BE next to LC requests");
    checkPausing(Check, *Rt, K, Gpu, Be, Registry);
    Dog.step("killed LC peer");
    checkKilledPeer(Check, *Rt, K, Gpu, Be, Registry);
    Ev.Talk.send('Q');
    Check.expect(reap(Ev) == 0, "the event-poll peer failed");
    baton_share_leave(Be);
  } catch (const std::exception &E) {
    Check.fail(std::string("exception: ") + E.what());
    kill(Gpu.Pid, SIGKILL);
    kill(Ev.Pid, SIGKILL);
  }
  return Check.summary();
}

//===-- One side, for the benchmark ---------------------------------------===//

struct SideOptions {
  std::string Registry;
  bool Share = true;
  double Seconds = 10;
  uint64_t SpinUs = 50;
  uint32_t Blocks = 0; ///< 0: the side's default
  bool FirstRunsOnUserStream = false; ///< be only: BeOptions
  bool DependentFinalize = false;     ///< be only: BeOptions
  std::string Json, Name;
};

SideOptions parseSide(int Argc, char **Argv) {
  SideOptions O;
  for (int I = 3; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Value = [&]() -> std::string {
      if (I + 1 >= Argc)
        throw std::runtime_error(A + " needs a value");
      return Argv[++I];
    };
    if (A == "--registry")
      O.Registry = Value();
    else if (A == "--no-share")
      O.Share = false;
    else if (A == "--seconds")
      O.Seconds = std::stod(Value());
    else if (A == "--kernel-us" || A == "--block-us")
      O.SpinUs = std::stoull(Value());
    else if (A == "--blocks")
      O.Blocks = uint32_t(std::stoul(Value()));
    else if (A == "--json")
      O.Json = Value();
    else if (A == "--name")
      O.Name = Value();
    else if (A == "--first-runs-on-user-stream")
      O.FirstRunsOnUserStream = true;
    else if (A == "--dependent-finalize")
      O.DependentFinalize = true;
    else
      throw std::runtime_error("unknown option " + A);
  }
  return O;
}

int runSide(bool Lc, const char *Ptx, const SideOptions &O) {
  auto Rt = runtimeOrSkip();
  if (!Rt)
    return SkipExitCode;
  Module M = Rt->loadFile(Ptx);
  Kernel K = M.kernel("record");
  baton_share S = nullptr;
  if (O.Share)
    require(baton_share_join(O.Registry.empty() ? nullptr : O.Registry.c_str(),
                             0,
                             Lc ? BATON_SHARE_LATENCY_CRITICAL
                                : BATON_SHARE_BEST_EFFORT,
                             O.Name.empty() ? nullptr : O.Name.c_str(), &S),
            "baton_share_join");
  uint64_t Until = monotonicNs() + uint64_t(O.Seconds * 1e9);
  auto Stop = [&] { return monotonicNs() >= Until; };
  const char *Mode = O.Share ? "share" : "no-share";
  std::string Json;
  uint64_t Off = 0;
  char Buf[512];
  if (Lc) {
    LcOptions L;
    L.SpinNs = O.SpinUs * 1000;
    if (O.Blocks)
      L.Blocks = O.Blocks;
    LcResult R = runLatencyCritical(K, S, L, Stop);
    Percentiles P = percentiles(R.LatencyUs);
    Off = R.BlocksOff;
    std::printf("lc (%s): %zu requests, p50 %.1f us, p99 %.1f us, max %.1f "
                "us, mean %.1f us, blocks off %llu\n",
                Mode, R.LatencyUs.size(), P.P50, P.P99, P.Max, P.Mean,
                (unsigned long long)Off);
    std::snprintf(Buf, sizeof(Buf),
                  "{\"side\": \"lc\", \"share\": %s, \"requests\": %zu, "
                  "\"p50_us\": %.1f, \"p99_us\": %.1f, \"max_us\": %.1f, "
                  "\"mean_us\": %.1f, \"kernel_us\": %llu, \"blocks\": %u, "
                  "\"blocks_off\": %llu}\n",
                  O.Share ? "true" : "false", R.LatencyUs.size(), P.P50,
                  P.P99, P.Max, P.Mean, (unsigned long long)O.SpinUs,
                  L.Blocks, (unsigned long long)Off);
  } else {
    BeOptions B;
    B.SpinNs = O.SpinUs * 1000;
    if (O.Blocks)
      B.Blocks = O.Blocks;
    B.FirstRunsOnUserStream = O.FirstRunsOnUserStream;
    B.DependentFinalize = O.DependentFinalize;
    BeResult R = runBestEffort(*Rt, K, S, B, Stop);
    Off = R.BlocksOff;
    std::printf("be (%s): %llu launches, %.4g blocks/s, %llu pauses, %llu "
                "resumes, blocks off %llu\n",
                Mode, (unsigned long long)R.Launches, R.blocksPerSecond(B),
                (unsigned long long)R.Stats.Pauses,
                (unsigned long long)R.Stats.Resumes, (unsigned long long)Off);
    std::snprintf(Buf, sizeof(Buf),
                  "{\"side\": \"be\", \"share\": %s, \"launches\": %llu, "
                  "\"blocks_per_s\": %.6g, \"pauses\": %llu, \"resumes\": "
                  "%llu, \"seconds\": %.3f, \"block_us\": %llu, \"blocks\": "
                  "%u, \"blocks_off\": %llu}\n",
                  O.Share ? "true" : "false", (unsigned long long)R.Launches,
                  R.blocksPerSecond(B), (unsigned long long)R.Stats.Pauses,
                  (unsigned long long)R.Stats.Resumes, R.Seconds,
                  (unsigned long long)O.SpinUs, B.Blocks,
                  (unsigned long long)Off);
  }
  baton_share_leave(S);
  if (!O.Json.empty()) {
    FILE *F = std::fopen(O.Json.c_str(), "w");
    if (!F)
      throw std::runtime_error("cannot write " + O.Json);
    std::fputs(Buf, F);
    std::fclose(F);
  }
  return Off ? 1 : 0;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 3) {
    std::fprintf(stderr, "usage: %s check|lc|be RECORD_BATON_PTX [options]\n",
                 Argv[0]);
    return 2;
  }
  // As the launch shim does when scheduling is on (cuda_launch.h): a stream
  // waiting on a paused launch must not share a hardware queue with others.
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
  std::string Mode = Argv[1];
  try {
    if (Mode == "check")
      return check(Argv[2]);
    if (Mode == "lc" || Mode == "be")
      return runSide(Mode == "lc", Argv[2], parseSide(Argc, Argv));
  } catch (const std::exception &E) {
    std::printf("FAIL: %s\n0 passed, 1 failed\n", E.what());
    return 1;
  }
  std::fprintf(stderr, "%s: unknown mode '%s'\n", Argv[0], Mode.c_str());
  return 2;
}
