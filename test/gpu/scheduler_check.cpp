//===- scheduler_check.cpp - The scheduler service on a real GPU ----------===//
//
// Usage: scheduler_check RECORD_BATON_PTX
//
// What the launch shim does for a program, driven directly: best-effort
// launches of `record` (every block counts itself) go to a SchedulerService
// as IssueAtOnce work on one user stream S, each followed on S by a copy of
// its counts to the host; meanwhile a client thread storms the scheduler
// with latency-critical work, both its own kernels (LC launches of `record`
// on a high-priority stream) and external work (beginExternal/endExternal,
// all SMs or a third of them, as PyTorch inference would), at random
// log-uniform delays. Checked, over several rounds:
//  * every block of every launch, BE and LC, ran exactly once;
//  * every copy queued on S behind a BE launch saw that launch complete
//    (S kept its order, however the launches were paused and resumed);
//  * best-effort work was paused and resumed (the storm did something);
//  * every piece of work is Done once the service is idle.
// And once, a client that runs far ahead of paused work: while external LC
// work holds every BE launch paused, thousands of BE launches are submitted
// on S, more than the driver queues on one stream. They must all run, each
// exactly once, when the LC work ends (the service bounds a BE queue; before
// it did, a submit blocked in the driver with the service's lock held, and
// the program hung).
// And once, a module load inside the loader's own bracket: BE launches wait
// paused on S for a bracket that the loading thread itself keeps open. The
// load, under holdBestEffort, must return (a load made while a stream
// waits paused never does; the hold drains the BE work once its patience
// is up), with every BE block run once and the bracket still open.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"

#include "baton/SchedulerService.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>

using namespace baton;
using namespace baton::sched;
using namespace baton::test;
using baton::detail::driver;

namespace {

constexpr uint32_t BeLaunches = 16;
constexpr uint32_t BeBlocks = 60000;  // about 14 waves of 64-thread workers
constexpr uint64_t BeSpinNs = 20000;  // 20 us blocks
constexpr uint32_t LcBlocks = 264;    // two blocks per SM on an H100/H200
constexpr uint64_t LcSpinNs = 30000;

/// How many of \p N counts are not 1.
size_t countsOff(const uint32_t *Counts, size_t N) {
  size_t Bad = 0;
  for (size_t I = 0; I < N; ++I)
    Bad += Counts[I] != 1;
  return Bad;
}

double logUniformMicros(std::mt19937_64 &Rng, double Lo, double Hi) {
  return std::exp(std::uniform_real_distribution<double>(
      std::log(Lo), std::log(Hi))(Rng));
}

/// The latency-critical client: LC kernels and external LC work at random
/// times until told to stop. Returns the LC launches' count buffers.
struct LcClient {
  LcClient(SchedulerService &Svc, const Kernel &K, uint64_t Seed)
      : Svc(Svc), K(K), Rng(Seed), Lc(/*Priority=*/-1) {}

  /// Runs on its own thread, which must have the runtime's context current.

  void run(const std::atomic<bool> &Stop) {
    while (!Stop.load()) {
      sleepMicros(logUniformMicros(Rng, 5, 1000));
      switch (Rng() % 3) {
      case 0: { // an LC kernel of the scheduler's own
        Buffers.emplace_back(LcBlocks * sizeof(uint32_t));
        DeviceBuffer &Counts = Buffers.back();
        Counts.upload(std::vector<uint8_t>(Counts.size(), 0), Lc.get());
        LaunchConfig Config;
        Config.Grid = {LcBlocks, 1, 1};
        Config.Block = {64, 1, 1};
        Config.Stream = Lc.get();
        Svc.submit(makeWork(
            RuntimeWork::make(K, Config, Counts.get(), LcSpinNs),
            PriorityClass::LatencyCritical));
        break;
      }
      default: { // external LC work: whole device, or a third of it
        uint64_t Id = Svc.beginExternal(Rng() % 2 ? 0 : 44);
        sleepMicros(logUniformMicros(Rng, 20, 800));
        Svc.endExternal(Id);
        ++External;
        break;
      }
      }
    }
  }

  SchedulerService &Svc;
  const Kernel &K;
  std::mt19937_64 Rng;
  Stream Lc;
  std::deque<DeviceBuffer> Buffers;
  unsigned External = 0;
};

void runRound(Runtime &Rt, const Kernel &K, Checker &Check, Watchdog &Dog,
              uint64_t Seed) {
  const std::string Round = "round " + std::to_string(Seed);
  Dog.step(Round);
  SchedulerService Svc(Rt);
  Stream S;
  std::vector<DeviceBuffer> Counts;
  for (uint32_t I = 0; I < BeLaunches; ++I) {
    Counts.emplace_back(BeBlocks * sizeof(uint32_t));
    Counts.back().upload(std::vector<uint8_t>(Counts.back().size(), 0),
                         S.get());
  }
  S.synchronize();
  std::vector<std::unique_ptr<PinnedCounts>> Snapshots;
  std::vector<uint64_t> Ids;

  std::atomic<bool> Stop{false};
  LcClient Client(Svc, K, Seed * 7919);
  std::string ClientError;
  std::thread ClientThread([&] {
    try {
      check(driver().cuCtxSetCurrent(Rt.context()), "cuCtxSetCurrent");
      Client.run(Stop);
    } catch (const std::exception &E) {
      ClientError = E.what();
    }
  });
  for (uint32_t I = 0; I < BeLaunches; ++I) {
    LaunchConfig Config;
    Config.Grid = {BeBlocks, 1, 1};
    Config.Block = {64, 1, 1};
    Config.Stream = S.get();
    Work W = makeWork(
        RuntimeWork::make(K, Config, Counts[I].get(), BeSpinNs),
        PriorityClass::BestEffort, /*Queue=*/1);
    W.IssueAtOnce = true;
    Ids.push_back(Svc.submit(std::move(W)));
    // Queued on S behind the launch: it must see every block counted.
    Snapshots.push_back(std::make_unique<PinnedCounts>(BeBlocks));
    check(driver().cuMemcpyDtoHAsync(Snapshots.back()->Data, Counts[I].get(),
                                     BeBlocks * sizeof(uint32_t), S.get()),
          "cuMemcpyDtoHAsync (snapshot on the user stream)");
  }
  S.synchronize(); // completes only once every BE launch has
  Stop = true;
  ClientThread.join();
  Svc.waitIdle();

  Check.expect(ClientError.empty(), Round + ": LC client: " + ClientError);
  size_t Early = 0, Lost = 0;
  for (uint32_t I = 0; I < BeLaunches; ++I) {
    Early += countsOff(Snapshots[I]->Data, BeBlocks) != 0;
    std::vector<uint8_t> Final = Counts[I].download(S.get());
    Lost += countsOff(reinterpret_cast<const uint32_t *>(Final.data()),
                      BeBlocks);
  }
  Check.expect(Lost == 0, Round + ": " + std::to_string(Lost) +
                              " BE blocks ran other than once");
  Check.expect(Early == 0, Round + ": " + std::to_string(Early) +
                               " copies on the user stream ran before the "
                               "launch ahead of them had completed");
  size_t LcOff = 0;
  for (const DeviceBuffer &B : Client.Buffers) {
    std::vector<uint8_t> Final = B.download(S.get());
    LcOff += countsOff(reinterpret_cast<const uint32_t *>(Final.data()),
                       LcBlocks);
  }
  Check.expect(LcOff == 0, Round + ": " + std::to_string(LcOff) +
                               " LC blocks ran other than once");
  bool AllDone = true;
  for (uint64_t Id : Ids)
    AllDone &= Svc.info(Id).State == WorkState::Done;
  Check.expect(AllDone, Round + ": BE work not Done after waitIdle()");
  ServiceStats Stats = Svc.stats();
  Check.expect(Stats.Pauses > 0,
               Round + ": the storm paused no running best-effort launch");
  std::printf("%-8s %2u BE launches x %u blocks, %zu LC kernels, %u external "
              "LC, %llu pauses, %llu resumes\n",
              Round.c_str(), BeLaunches, BeBlocks, Client.Buffers.size(),
              Client.External, (unsigned long long)Stats.Pauses,
              (unsigned long long)Stats.Resumes);
  std::fflush(stdout);
}

/// Launches of `record` on one user stream, each counting its blocks in a
/// slice of one buffer, submitted as IssueAtOnce BE work of queue 1.
class CountedLaunches {
public:
  CountedLaunches(uint32_t Launches, uint32_t Blocks, Stream &S)
      : Launches(Launches), Blocks(Blocks), S(S),
        Counts(blocks() * sizeof(uint32_t)) {
    Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
    S.synchronize();
  }

  /// Submits every launch, its blocks spinning \p SpinNs; returns the ids.
  std::vector<uint64_t> submit(SchedulerService &Svc, const Kernel &K,
                               uint64_t SpinNs) {
    std::vector<uint64_t> Ids;
    for (uint32_t I = 0; I < Launches; ++I) {
      LaunchConfig Config;
      Config.Grid = {Blocks, 1, 1};
      Config.Block = {64, 1, 1};
      Config.Stream = S.get();
      CUdeviceptr Mine = Counts.get() + size_t(I) * Blocks * sizeof(uint32_t);
      Work W = makeWork(RuntimeWork::make(K, Config, Mine, SpinNs),
                        PriorityClass::BestEffort, /*Queue=*/1);
      W.IssueAtOnce = true;
      Ids.push_back(Svc.submit(std::move(W)));
    }
    return Ids;
  }

  /// Blocks, of every launch, that did not run exactly once.
  size_t blocksOff() const {
    std::vector<uint8_t> Final = Counts.download(S.get());
    return countsOff(reinterpret_cast<const uint32_t *>(Final.data()),
                     blocks());
  }

  const uint32_t Launches, Blocks;

private:
  size_t blocks() const { return size_t(Launches) * Blocks; }
  Stream &S;
  DeviceBuffer Counts;
};

/// The client far ahead of a paused queue (see the file comment).
void runDeepQueue(Runtime &Rt, const Kernel &K, Checker &Check,
                  Watchdog &Dog) {
  constexpr auto Held = std::chrono::milliseconds(200);
  Dog.step("deep queue");
  SchedulerService Svc(Rt);
  Stream S;
  CountedLaunches Launches(3000, 64, S);
  uint64_t Lc = Svc.beginExternal(0);
  std::thread Ender([&] {
    std::this_thread::sleep_for(Held);
    Svc.endExternal(Lc);
  });
  Launches.submit(Svc, K, /*SpinNs=*/1000);
  S.synchronize();
  Ender.join();
  Svc.waitIdle();
  size_t Off = Launches.blocksOff();
  Check.expect(Off == 0, "deep queue: " + std::to_string(Off) +
                             " blocks ran other than once");
  std::printf("deep queue: %u BE launches submitted behind %lld ms of LC "
              "work, %llu resumes\n",
              Launches.Launches, static_cast<long long>(Held.count()),
              (unsigned long long)Svc.stats().Resumes);
  std::fflush(stdout);
}

/// A module load inside the loader's own bracket (see the file comment).
void runLoadInsideBracket(Runtime &Rt, const Kernel &K,
                          const std::string &Path, Checker &Check,
                          Watchdog &Dog) {
  constexpr auto Patience = std::chrono::milliseconds(50);
  Dog.step("module load inside a bracket");
  SchedulerService Svc(Rt);
  Stream S;
  CountedLaunches Launches(8, 2000, S);
  uint64_t Bracket = Svc.beginExternal(0);
  std::vector<uint64_t> Ids = Launches.submit(Svc, K, /*SpinNs=*/5000);
  bool IssuedPaused = Svc.info(Ids.front()).State == WorkState::Paused;
  auto Start = std::chrono::steady_clock::now();
  {
    auto Hold = Svc.holdBestEffort(Patience);
    Module Again = Rt.loadFile(Path);
    (void)Again.kernel("record");
  }
  double LoadMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - Start)
                      .count();
  bool AllDone = true;
  for (uint64_t Id : Ids)
    AllDone &= Svc.info(Id).State == WorkState::Done;
  Svc.endExternal(Bracket);
  Svc.waitIdle();
  size_t Off = Launches.blocksOff();
  Check.expect(IssuedPaused, "load inside a bracket: the BE work was not "
                             "issued paused, so nothing was tested");
  Check.expect(AllDone, "load inside a bracket: the hold was granted with "
                        "BE work outstanding");
  Check.expect(Off == 0, "load inside a bracket: " + std::to_string(Off) +
                             " blocks ran other than once");
  std::printf("load inside a bracket: %u BE launches drained and the module "
              "loaded in %.1f ms (patience %lld ms)\n",
              Launches.Launches, LoadMs,
              static_cast<long long>(Patience.count()));
  std::fflush(stdout);
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    std::fprintf(stderr, "usage: %s RECORD_BATON_PTX\n", Argv[0]);
    return 2;
  }
  // As the launch shim does when scheduling is on (cuda_launch.h): a stream
  // waiting on a paused launch must not share a hardware queue with others.
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
  Checker Check;
  try {
    auto Rt = runtimeOrSkip();
    if (!Rt)
      return SkipExitCode;
    Watchdog Dog("scheduler_check", std::chrono::seconds(120));
    std::printf("scheduler_check on %s\n", describeDevice(*Rt).c_str());
    Module M = Rt->loadFile(Argv[1]);
    Kernel K = M.kernel("record");
    for (uint64_t Seed = 1; Seed <= 4; ++Seed)
      runRound(*Rt, K, Check, Dog, Seed);
    runDeepQueue(*Rt, K, Check, Dog);
    runLoadInsideBracket(*Rt, K, Argv[1], Check, Dog);
  } catch (const std::exception &E) {
    Check.fail(std::string("exception: ") + E.what());
  }
  return Check.summary();
}
