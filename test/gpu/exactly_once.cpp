//===- exactly_once.cpp - Every virtual block runs once, whatever the pauses -===//
//
// Usage: exactly_once RECORD_BATON_PTX
//
// RECORD_BATON_PTX is test/gpu/kernels/record.ptx after baton-ptx. Its
// `record` kernel counts each block in counts[linear id] and spins for a set
// time. For 1-D, 2-D and 3-D grids, in PTB mode (all co-resident workers, and
// a few; the first run on S, and on a private stream) and slice mode (one
// wave, and narrow slices), a launch is issued on a user stream S followed by
// a copy of the counts on S, and then paused and resumed at random delays
// (1 us to 2 ms, log-uniform) until it completes.
// Checked, for every case:
//  * every count is exactly 1 (no block lost, none run twice);
//  * while paused, the copy queued on S behind the launch has not run, and
//    when it runs it sees every count at 1 (S waited for all blocks);
//  * progress never goes backwards and is below the total while paused;
//  * PTB statistics: every worker of every relaunch left exactly once.
// Thousands of pause/resume pairs run in all; the output names the case,
// the number of pauses and the time taken.
// Two last PTB cases vacate SMs (Launch::vacate, the task's SM watermark):
// half of them for a whole launch, which must finish with some workers
// gone and the others still there; and at random, some SMs, none, or all
// of them, which must stop the run with work left (Paused, though no pause
// was asked), plus pauses. The same checks hold.
// A last case starts 64 PTB launches paused on one stream (as the scheduler
// does while latency-critical work runs) and resumes them one by one while
// another thread is blocked synchronising that stream: a resume must not
// wait for that thread (it once created its private stream, which can).
// The plain-finalize and copy-engine-flag cases run a few of the PTB cases
// again with RuntimeOptions::DependentFinalize off and with
// PreemptSignal::Memcpy.
// A PTB variant built for an earlier task ABI (the module's text with the
// variant's ABI marker taken out and its read of `first_share` made 0) must
// get no first shares from the runtime, and still run every block once.
// The very last case launches two shapes again and again, as a training
// loop does, with pauses and vacates at random: the runtime reuses the
// tasks of launches that completed untouched without copying them again,
// and every launch must still run each block once and report its own
// progress and workers. And PTB launches started paused run the original
// kernel instead (Launch::resumeAsOriginal): every block once, in the
// stream's order, and the next launches of the shape still correct.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

using namespace baton;
using namespace baton::test;
using baton::detail::driver;

namespace {

struct Case {
  const char *Name;
  Dim3 Grid;
  Dim3 Block;
  Mode LaunchMode;
  uint32_t Width; // workers or slice blocks; 0 = runtime default
  uint64_t SpinNs;
  bool FirstRunOnPrivateStream = false;
  bool DependentFinalize = true;
  bool FirstShares = true;
  uint32_t CoveringShareLimit = 0;
};

// Sized so that each case runs for about 200 ms on an H100 (132 SMs, 4224
// co-resident 64-thread workers) without pauses: long enough for several
// hundred pauses at the storm's delays.
const Case Cases[] = {
    {"ptb 1-D, all workers", {42240000, 1, 1}, {64, 1, 1}, Mode::Ptb, 0,
     20000},
    {"ptb 2-D, all workers", {6500, 6500, 1}, {8, 8, 1}, Mode::Ptb, 0, 20000},
    {"ptb 3-D, all workers", {350, 350, 345}, {4, 4, 4}, Mode::Ptb, 0, 20000},
    {"ptb 2-D, 97 workers", {1000, 970, 1}, {32, 2, 1}, Mode::Ptb, 97, 20000},
    {"ptb 3-D, 1 worker", {50, 40, 50}, {64, 1, 1}, Mode::Ptb, 1, 1000},
    {"ptb 1-D, private 1st run", {42240000, 1, 1}, {64, 1, 1}, Mode::Ptb, 0,
     20000, /*FirstRunOnPrivateStream=*/true},
    // What the launch router does for BE work that yields to other
    // processes: a plain finalize on a runtime whose finalize is dependent.
    {"ptb 1-D, private 1st run, plain finalize", {42240000, 1, 1}, {64, 1, 1},
     Mode::Ptb, 0, 20000, /*FirstRunOnPrivateStream=*/true,
     /*DependentFinalize=*/false},
    // Every worker making its own first claim (LaunchConfig::FirstShares).
    {"ptb 2-D, all workers, no first shares", {6500, 6500, 1}, {8, 8, 1},
     Mode::Ptb, 0, 20000, false, true, /*FirstShares=*/false},
    {"slices 1-D, one wave", {42240000, 1, 1}, {64, 1, 1}, Mode::Slices, 0,
     20000},
    {"slices 3-D, one wave", {350, 350, 345}, {4, 4, 4}, Mode::Slices, 0,
     20000},
    {"slices 2-D, 13 blocks", {300, 200, 1}, {8, 8, 1}, Mode::Slices, 13,
     2000},
    // First shares beyond the claim chunk (LaunchConfig::
    // CoveringShareLimit): on an H100 the 4224 workers' shares of 64 blocks
    // cover the grid, no worker claims or looks at `preempt`, and a pause
    // waits for the whole run (about 1.3 ms).
    {"ptb 1-D, all workers, covering shares", {4224 * 64, 1, 1}, {64, 1, 1},
     Mode::Ptb, 0, 20000, false, true, true, /*CoveringShareLimit=*/64},
};

class Storm {
public:
  explicit Storm(uint64_t Seed) : Rng(Seed) {}
  /// A delay, log-uniform between 1 us and 2 ms.
  double delayMicros() {
    return std::exp(std::uniform_real_distribution<double>(
        0.0, std::log(2000.0))(Rng));
  }

private:
  std::mt19937_64 Rng;
};

/// Index and value of the first count that is not \p Times, and how many
/// are off.
std::string checkCounts(const uint32_t *Counts, size_t N, uint32_t Times = 1) {
  size_t Bad = 0, First = 0;
  for (size_t I = 0; I < N; ++I)
    if (Counts[I] != Times && Bad++ == 0)
      First = I;
  if (!Bad)
    return {};
  return std::to_string(Bad) + " of " + std::to_string(N) +
         " blocks ran other than " + std::to_string(Times) +
         " times; first: block " + std::to_string(First) + " ran " +
         std::to_string(Counts[First]) + " times";
}

/// Once a launch is done: every block ran once, and the copy queued on the
/// user stream behind the launch saw them all. Returns whether both held.
bool checkBlocksRanOnce(Checker &Check, const std::string &Name,
                        DeviceBuffer &Counts, const PinnedCounts &Snapshot,
                        size_t Blocks, CUstream S) {
  std::vector<uint8_t> Final = Counts.download(S);
  std::string Error =
      checkCounts(reinterpret_cast<const uint32_t *>(Final.data()), Blocks);
  Check.expect(Error.empty(), Name + ": " + Error);
  std::string Early = checkCounts(Snapshot.Data, Blocks);
  Check.expect(Early.empty(),
               Name + ": the copy queued on the user stream after the launch "
                      "ran before the launch completed: " +
                   Early);
  return Error.empty() && Early.empty();
}

/// Each (re)launch starts width() workers and each leaves exactly once.
void checkWorkersLeft(Checker &Check, const std::string &Name, const Launch &L,
                      unsigned Relaunches) {
  uint64_t Expected = uint64_t(L.width()) * (Relaunches + 1);
  Check.expect(L.workersExited() == Expected,
               Name + ": device counted " + std::to_string(L.workersExited()) +
                   " workers leaving, expected " + std::to_string(Expected));
  Check.expect(L.workersPreempted() <= L.workersExited(),
               Name + ": more workers preempted than left");
  Check.expect(L.workersLeftLastRun() <= L.width(),
               Name + ": more workers of the last run preempted than it had");
}

void runCase(Runtime &Rt, const Kernel &K, const Case &C, Checker &Check,
             Watchdog &Dog, uint64_t Seed) {
  const std::string Name = C.Name;
  Dog.step(Name);
  const size_t Blocks = size_t(C.Grid.x) * C.Grid.y * C.Grid.z;
  Stream S;
  DeviceBuffer Counts(Blocks * sizeof(uint32_t));
  Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
  PinnedCounts Snapshot(Blocks);

  LaunchConfig Config;
  Config.Grid = C.Grid;
  Config.Block = C.Block;
  Config.Stream = S.get();
  Config.LaunchMode = C.LaunchMode;
  (C.LaunchMode == Mode::Ptb ? Config.Workers : Config.SliceBlocks) = C.Width;
  Config.FirstRunOnPrivateStream = C.FirstRunOnPrivateStream;
  Config.DependentFinalize = C.DependentFinalize;
  Config.FirstShares = C.FirstShares;
  Config.CoveringShareLimit = C.CoveringShareLimit;
  uint64_t Spin = C.SpinNs;
  void *Args[] = {Counts.slot(), &Spin};

  CUevent AfterLaunch = nullptr;
  check(driver().cuEventCreate(&AfterLaunch, CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
  auto Start = std::chrono::steady_clock::now();
  Launch L = Rt.launch(K, Config, Args);
  check(driver().cuMemcpyDtoHAsync(Snapshot.Data, Counts.get(),
                                   Blocks * sizeof(uint32_t), S.get()),
        "cuMemcpyDtoHAsync (snapshot on the user stream)");
  check(driver().cuEventRecord(AfterLaunch, S.get()), "cuEventRecord");

  Storm Rng(Seed);
  unsigned Pauses = 0, StreamViolations = 0, ProgressViolations = 0;
  uint32_t LastDone = 0;
  for (;;) {
    sleepMicros(Rng.delayMicros());
    if (!L.pause())
      break; // completed before the pause took effect
    ++Pauses;
    if (driver().cuEventQuery(AfterLaunch) != CUDA_ERROR_NOT_READY)
      ++StreamViolations;
    Progress P = L.progress();
    if (P.Done < LastDone || P.Done >= P.Total)
      ++ProgressViolations;
    LastDone = P.Done;
    sleepMicros(Rng.delayMicros() / 4);
    L.resume();
  }
  Check.expect(L.wait() == LaunchState::Done,
               Name + ": wait() after the storm did not report Done");
  check(driver().cuEventSynchronize(AfterLaunch), "cuEventSynchronize");
  double Ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - Start)
                  .count();
  driver().cuEventDestroy(AfterLaunch);

  bool Once =
      checkBlocksRanOnce(Check, Name, Counts, Snapshot, Blocks, S.get());
  Check.expect(StreamViolations == 0,
               Name + ": the user stream went past a paused launch " +
                   std::to_string(StreamViolations) + " times");
  Check.expect(ProgressViolations == 0,
               Name + ": progress went backwards or reached the total while "
                      "paused " +
                   std::to_string(ProgressViolations) + " times");
  Progress P = L.progress();
  Check.expect(P.Done == Blocks && P.Total == Blocks,
               Name + ": final progress " + std::to_string(P.Done) + "/" +
                   std::to_string(P.Total) + ", expected " +
                   std::to_string(Blocks));
  if (C.LaunchMode == Mode::Ptb)
    checkWorkersLeft(Check, Name, L, Pauses); // one resume per pause
  // Shares that cover the grid: no worker looked at `preempt`, so every
  // pause found the launch completing instead.
  if (C.CoveringShareLimit && uint64_t(L.width()) * C.CoveringShareLimit >=
                                  Blocks)
    Check.expect(Pauses == 0 && L.workersPreempted() == 0,
                 Name + ": a worker saw `preempt` in a run of covering "
                        "shares (" +
                     std::to_string(Pauses) + " pauses)");
  // The last run's device time, where the runtime times PTB runs: within
  // the host's time of the whole launch.
  std::optional<std::chrono::nanoseconds> Run = L.lastRunTime();
  if (Rt.options().TimeRunsOnDevice && C.LaunchMode == Mode::Ptb)
    Check.expect(Run && Run->count() > 0 &&
                     std::chrono::duration<double, std::milli>(*Run).count() <=
                         Ms,
                 Name + ": no device time of the last run, or one longer "
                        "than the launch");
  else
    Check.expect(!Run, Name + ": a device time where runs are not timed");
  std::printf("%-4s %-24s grid %u,%u,%u width %-5u %5u pauses  %8.1f ms\n",
              Once && !StreamViolations ? "ok" : "FAIL",
              C.Name, C.Grid.x, C.Grid.y, C.Grid.z, L.width(), Pauses, Ms);
  std::fflush(stdout);
}

/// More SMs than any GPU has: vacating this many stops every worker, even
/// where SM ids are not contiguous.
constexpr uint32_t EverySm = 1u << 16;

/// Half the SMs vacated from the start of a run: the workers there leave,
/// the others finish the launch, with no pause.
void runHalfVacated(Runtime &Rt, const Kernel &K, Checker &Check,
                    Watchdog &Dog) {
  const std::string Name = "ptb 1-D, half the SMs vacated";
  Dog.step(Name);
  const Dim3 Grid{4224000, 1, 1};
  const size_t Blocks = Grid.x;
  Stream S;
  DeviceBuffer Counts(Blocks * sizeof(uint32_t));
  Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
  LaunchConfig Config{Grid, {64, 1, 1}, 0, S.get(), Mode::Ptb};
  uint64_t Spin = 20000;
  void *Args[] = {Counts.slot(), &Spin};
  Launch L = Rt.launch(K, Config, Args);
  L.vacate(uint32_t(Rt.multiprocessorCount()) / 2);
  Check.expect(L.wait() == LaunchState::Done,
               Name + ": the workers on the other SMs did not finish it");
  std::vector<uint8_t> Final = Counts.download(S.get());
  std::string Error =
      checkCounts(reinterpret_cast<const uint32_t *>(Final.data()), Blocks);
  Check.expect(Error.empty(), Name + ": " + Error);
  Check.expect(L.workersPreempted() > 0,
               Name + ": no worker left a vacated SM");
  Check.expect(L.workersPreempted() < L.workersExited(),
               Name + ": every worker stopped, not only those on vacated SMs");
  Check.expect(L.workersLeftLastRun() == L.workersPreempted(),
               Name + ": the one run's count is not the launch's");
  std::printf("%-4s %-24s %u of %u workers left their SMs\n",
              Error.empty() ? "ok" : "FAIL", Name.c_str(),
              L.workersPreempted(), L.workersExited());
  std::fflush(stdout);
}

void runVacateCase(Runtime &Rt, const Kernel &K, Checker &Check,
                   Watchdog &Dog, uint64_t Seed,
                   const std::string &Prefix = "") {
  const std::string Name = Prefix + "ptb 1-D, vacate storm";
  Dog.step(Name);
  const Dim3 Grid{42240000, 1, 1};
  const size_t Blocks = Grid.x;
  Stream S;
  DeviceBuffer Counts(Blocks * sizeof(uint32_t));
  Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
  PinnedCounts Snapshot(Blocks);
  LaunchConfig Config{Grid, {64, 1, 1}, 0, S.get(), Mode::Ptb};
  uint64_t Spin = 20000;
  void *Args[] = {Counts.slot(), &Spin};
  CUevent AfterLaunch = nullptr;
  check(driver().cuEventCreate(&AfterLaunch, CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
  const uint32_t Sms = uint32_t(Rt.multiprocessorCount());
  std::mt19937_64 Rng(Seed);
  auto SomeSms = [&] { return uint32_t(Rng() % Sms); };
  Storm Delays(Seed);

  Launch L = Rt.launch(K, Config, Args);
  check(driver().cuMemcpyDtoHAsync(Snapshot.Data, Counts.get(),
                                   Blocks * sizeof(uint32_t), S.get()),
        "cuMemcpyDtoHAsync (snapshot on the user stream)");
  check(driver().cuEventRecord(AfterLaunch, S.get()), "cuEventRecord");
  // Every SM vacated: every worker leaves, and the launch stops Paused.
  sleepMicros(2000);
  L.vacate(EverySm);
  Check.expect(L.wait() == LaunchState::Paused,
               Name + ": vacating every SM did not stop the launch");
  Check.expect(L.progress().Done < Blocks,
               Name + ": the launch finished before its SMs were vacated");
  L.vacate(Sms / 2);
  L.resume();
  unsigned Resumes = 1, Vacates = 2, StoppedByVacate = 1, Pauses = 0;
  unsigned StreamViolations = 0;
  for (;;) {
    sleepMicros(Delays.delayMicros());
    LaunchState State = L.poll();
    if (State == LaunchState::Done)
      break;
    // Stopped with work left: the user stream must still wait; resume with
    // another watermark.
    auto ResumeStopped = [&] {
      if (driver().cuEventQuery(AfterLaunch) != CUDA_ERROR_NOT_READY)
        ++StreamViolations;
      L.vacate(SomeSms());
      L.resume();
      ++Resumes;
    };
    if (State == LaunchState::Paused) { // every worker left a vacated SM
      ++StoppedByVacate;
      ResumeStopped();
      continue;
    }
    switch (Rng() % 4) {
    case 0:
      if (!L.pause())
        continue; // done; the next poll says so
      ++Pauses;
      ResumeStopped();
      break;
    case 1:
      L.vacate(EverySm);
      ++Vacates;
      break;
    default:
      L.vacate(SomeSms());
      ++Vacates;
      break;
    }
  }
  check(driver().cuEventSynchronize(AfterLaunch), "cuEventSynchronize");
  driver().cuEventDestroy(AfterLaunch);
  bool Once =
      checkBlocksRanOnce(Check, Name, Counts, Snapshot, Blocks, S.get());
  Check.expect(StreamViolations == 0,
               Name + ": the user stream went past a stopped launch");
  checkWorkersLeft(Check, Name, L, Resumes);
  std::printf("%-4s %-24s %u vacates, %u stopped by them, %u pauses\n",
              Once && !StreamViolations ? "ok" : "FAIL", Name.c_str(),
              Vacates, StoppedByVacate, Pauses);
  std::fflush(stdout);
}

/// Launches started paused, resumed one at a time while another thread is
/// blocked in cuStreamSynchronize on their stream: a third at the width
/// they were issued with (their first shares stand), a third at another
/// (workers at the issued width's stride would skip blocks, so the shares
/// are withdrawn), a third with SMs vacated first (withdrawn too).
void runResumedWhileUserSyncs(Runtime &Rt, const Kernel &K, Checker &Check,
                              Watchdog &Dog) {
  const std::string Name = "ptb, resumed under a sync";
  Dog.step(Name);
  // More launches than the runtime keeps private streams for from the
  // cases before, so that they need streams of their own.
  constexpr size_t Launches = 64, Blocks = 132 * 64;
  Stream S;
  DeviceBuffer Counts(Launches * Blocks * sizeof(uint32_t));
  Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
  check(driver().cuStreamSynchronize(S.get()), "cuStreamSynchronize");
  uint64_t Spin = 20000;
  std::vector<CUdeviceptr> Slices(Launches);
  std::vector<Launch> Started;
  for (size_t I = 0; I < Launches; ++I) {
    Slices[I] = Counts.get() + I * Blocks * sizeof(uint32_t);
    void *Args[] = {&Slices[I], &Spin};
    LaunchConfig Config{{uint32_t(Blocks), 1, 1}, {64, 1, 1}, 0, S.get(),
                        Mode::Ptb};
    Config.StartPaused = true;
    // Every other launch gets shares of two blocks beyond its claims of
    // one, which cover the grid on an H100: kept at the issued width,
    // withdrawn at another or after a vacate, as any first shares.
    Config.CoveringShareLimit = I % 2 ? 2 : 0;
    Started.push_back(Rt.launch(K, Config, Args));
  }
  CUresult Synced = CUDA_ERROR_UNKNOWN;
  std::thread User([&] {
    check(driver().cuCtxSetCurrent(Rt.context()), "cuCtxSetCurrent");
    Synced = driver().cuStreamSynchronize(S.get());
  });
  sleepMicros(20000); // the user's thread is blocked in its synchronise
  unsigned Finished = 0;
  for (size_t I = 0; I < Launches; ++I) {
    Launch &L = Started[I];
    if (I % 3 == 2)
      L.vacate(8);
    L.resume(I % 3 == 1 ? 1000 : 0);
    Finished += L.wait() == LaunchState::Done;
  }
  User.join();
  Check.expect(Finished == Launches,
               Name + ": " + std::to_string(Launches - Finished) +
                   " launches did not finish");
  Check.expect(Synced == CUDA_SUCCESS,
               Name + ": the user's cuStreamSynchronize failed");
  std::vector<uint8_t> Final = Counts.download(S.get());
  std::string Error = checkCounts(
      reinterpret_cast<const uint32_t *>(Final.data()), Launches * Blocks);
  Check.expect(Error.empty(), Name + ": " + Error);
  std::printf("%-4s %-24s %zu launches resumed, each block once\n",
              Error.empty() && Finished == Launches ? "ok" : "FAIL",
              Name.c_str(), Launches);
  std::fflush(stdout);
}

/// A training loop's pattern: launches of the same shapes again and again.
/// The slot of a PTB launch that completed with its flag never written is
/// reused as the finalize kernel left it, with no task copy (TaskPool.h);
/// one whose flag was written, by a pause, a vacate or a pause racing the
/// end, is rewritten. Two shapes interleave, some launches are paused at
/// random, some have half the SMs vacated, some run their first kernel on
/// a private stream, some overlap, and some are queued behind a long kernel
/// on the user's stream. Every block must run once per launch; every
/// launch's progress and worker statistics must be its own (the reset
/// statistics of a reused task): a launch queued behind the long kernel
/// reports no progress yet (its first shares are handed out, not begun), and
/// one never paused nor vacated has no worker preempted (a reused task with
/// a watermark left in it would have some).
void runRepeatedShapes(Runtime &Rt, const Kernel &K, Checker &Check,
                       Watchdog &Dog, uint64_t Seed) {
  const std::string Name = "ptb, repeated shapes";
  Dog.step(Name);
  constexpr unsigned Rounds = 80;
  const Dim3 Grids[] = {{132 * 64, 1, 1}, {50, 40, 3}};
  Stream S;
  std::vector<DeviceBuffer> Counts;
  std::vector<uint32_t> Expected(2, 0);
  for (const Dim3 &G : Grids) {
    Counts.emplace_back(size_t(G.x) * G.y * G.z * sizeof(uint32_t));
    Counts.back().upload(std::vector<uint8_t>(Counts.back().size(), 0),
                         S.get());
  }
  uint64_t Spin = 20000;
  // The long kernel: the original `record` on one block, spinning 2 ms.
  DeviceBuffer Scratch(sizeof(uint32_t));
  uint64_t LongSpin = 2000000;
  void *LongArgs[] = {Scratch.slot(), &LongSpin};
  CUfunction Long = K.function(Mode::Original);
  const uint32_t Sms = uint32_t(Rt.multiprocessorCount());
  std::mt19937_64 Rng(Seed);
  Storm Delays(Seed);
  unsigned Launches = 0, Pauses = 0, Vacates = 0, Queued = 0, Violations = 0;
  std::string FirstViolation;
  auto Violation = [&](const std::string &What) {
    if (Violations++ == 0)
      FirstViolation = What;
  };
  auto Run = [&](size_t Shape, unsigned Round, bool Overlap) {
    const Dim3 &G = Grids[Shape];
    const uint32_t Blocks = G.x * G.y * G.z;
    LaunchConfig Config{G, {64, 1, 1}, 0, S.get(), Mode::Ptb};
    // Shape 0 is two blocks per co-resident worker on an H100: with claims
    // of 2 its first shares cover the grid, and its workers claim nothing.
    Config.ClaimChunk = Shape == 0 ? 2 : 1;
    Config.FirstRunOnPrivateStream = Round % 3 == 1;
    void *Args[] = {Counts[Shape].slot(), &Spin};
    bool Behind = Round % 4 == 3;
    if (Behind)
      check(driver().cuLaunchKernel(Long, 1, 1, 1, 64, 1, 1, 0, S.get(),
                                    LongArgs, nullptr),
            "cuLaunchKernel (long kernel)");
    std::vector<Launch> Issued;
    for (int I = 0; I < (Overlap ? 3 : 1); ++I) {
      Issued.push_back(Rt.launch(K, Config, Args));
      if (Behind && Issued.back().progress().Done != 0)
        Violation(Name + ": a launch queued behind a 2 ms kernel reports " +
                  std::to_string(Issued.back().progress().Done) +
                  " blocks done");
    }
    Queued += Behind ? Issued.size() : 0;
    for (Launch &L : Issued) {
      unsigned Resumes = 0;
      bool Touched = false;
      switch (Rng() % 4) {
      case 0:
        Touched = true;
        sleepMicros(Delays.delayMicros() / 8);
        if (L.pause()) {
          ++Pauses;
          ++Resumes;
          L.resume();
        }
        break;
      case 1:
        Touched = true;
        ++Vacates;
        L.vacate(Sms / 2);
        break;
      default:
        break;
      }
      std::string Which = Name + ": launch " + std::to_string(Launches++);
      if (L.wait() != LaunchState::Done)
        Violation(Which + " did not end Done");
      if (L.progress().Done != Blocks)
        Violation(Which + " ended at progress " +
                  std::to_string(L.progress().Done) + " of " +
                  std::to_string(Blocks));
      uint64_t Left = uint64_t(L.width()) * (Resumes + 1);
      if (L.workersExited() != Left)
        Violation(Which + ": " + std::to_string(L.workersExited()) +
                  " workers left, expected " + std::to_string(Left));
      if (!Touched && L.workersPreempted() != 0)
        Violation(Which + ": " + std::to_string(L.workersPreempted()) +
                  " workers preempted, though it was neither paused nor "
                  "vacated");
      ++Expected[Shape];
    }
  };
  for (unsigned Round = 0; Round < Rounds; ++Round) {
    Run(0, Round, Round % 5 == 4);
    Run(1, Round, Round % 7 == 6);
  }
  Check.expect(Violations == 0, std::to_string(Violations) +
                                    " violations; first: " + FirstViolation);
  bool Once = Violations == 0;
  for (size_t Shape = 0; Shape < 2; ++Shape) {
    const Dim3 &G = Grids[Shape];
    std::vector<uint8_t> Final = Counts[Shape].download(S.get());
    std::string Error =
        checkCounts(reinterpret_cast<const uint32_t *>(Final.data()),
                    size_t(G.x) * G.y * G.z, Expected[Shape]);
    Check.expect(Error.empty(), Name + ", shape " + std::to_string(Shape) +
                                    ": " + Error);
    Once &= Error.empty();
  }
  std::printf("%-4s %-24s %u launches of 2 shapes, %u paused, %u vacated, "
              "%u queued behind a long kernel\n",
              Once ? "ok" : "FAIL", Name.c_str(), Launches, Pauses, Vacates,
              Queued);
  std::fflush(stdout);
}

/// PTB launches started paused that run the original kernel instead
/// (Launch::resumeAsOriginal, what the scheduler does with one wave while
/// the device is quiet), some queued behind a 2 ms kernel, alternating with
/// PTB launches of the same shape, which may take the slot they left.
void runOriginalInstead(Runtime &Rt, const Kernel &K, Checker &Check,
                        Watchdog &Dog) {
  const std::string Name = "ptb, original instead";
  Dog.step(Name);
  const Dim3 Grid{50, 40, 3};
  const uint32_t Blocks = Grid.x * Grid.y * Grid.z;
  Stream S;
  DeviceBuffer Counts(size_t(Blocks) * sizeof(uint32_t));
  Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
  uint64_t Spin = 20000, LongSpin = 2000000;
  DeviceBuffer Scratch(sizeof(uint32_t));
  void *Args[] = {Counts.slot(), &Spin};
  void *LongArgs[] = {Scratch.slot(), &LongSpin};
  unsigned Originals = 0, Runs = 0;
  std::string Violation;
  auto Expect = [&](bool Ok, const std::string &What) {
    if (!Ok && Violation.empty())
      Violation = What;
  };
  for (unsigned Round = 0; Round < 24; ++Round) {
    LaunchConfig Config{Grid, {64, 1, 1}, 0, S.get(), Mode::Ptb};
    bool Instead = Round % 2 == 0;
    Config.StartPaused = Instead;
    if (Round % 4 == 0)
      check(driver().cuLaunchKernel(K.function(Mode::Original), 1, 1, 1, 64,
                                    1, 1, 0, S.get(), LongArgs, nullptr),
            "cuLaunchKernel (long kernel)");
    Launch L = Rt.launch(K, Config, Args);
    std::string Which = Name + ": launch " + std::to_string(Round);
    if (Instead) {
      L.resumeAsOriginal();
      ++Originals;
      Expect(L.mode() == Mode::Original, Which + " is not Original");
      bool Refused = false;
      try {
        L.pause();
      } catch (const baton::Error &E) {
        Refused = E.kind() == ErrorKind::InvalidState;
      }
      Expect(Refused, Which + ": pause() did not throw InvalidState");
    } else {
      ++Runs;
    }
    Expect(L.wait() == LaunchState::Done, Which + " did not end Done");
    Expect(L.progress().Done == Blocks,
           Which + " ended at progress " + std::to_string(L.progress().Done));
  }
  // A launch that has run cannot be turned into its original.
  LaunchConfig Config{Grid, {64, 1, 1}, 0, S.get(), Mode::Ptb};
  Config.StartPaused = true;
  Launch Ran = Rt.launch(K, Config, Args);
  Ran.resume();
  Ran.pause();
  bool Refused = false;
  try {
    Ran.resumeAsOriginal();
  } catch (const baton::Error &E) {
    Refused = E.kind() == ErrorKind::InvalidState;
  }
  Expect(Refused, Name + ": resumeAsOriginal() after a run did not throw "
                         "InvalidState");
  if (Ran.wait() == LaunchState::Paused)
    Ran.resume();
  Expect(Ran.wait() == LaunchState::Done, Name + ": the last launch not Done");
  std::vector<uint8_t> Final = Counts.download(S.get());
  std::string Error = checkCounts(
      reinterpret_cast<const uint32_t *>(Final.data()), Blocks, 25);
  Check.expect(Violation.empty(), Violation);
  Check.expect(Error.empty(), Name + ": " + Error);
  bool Ok = Violation.empty() && Error.empty();
  std::printf("%-4s %-24s %u originals instead, %u PTB runs between\n",
              Ok ? "ok" : "FAIL", Name.c_str(), Originals, Runs);
  std::fflush(stdout);
}

/// The original kernel through the runtime, as a baseline for the counter.
void runOriginal(Runtime &Rt, const Kernel &K, Checker &Check) {
  Dim3 Grid{37, 11, 3};
  size_t Blocks = size_t(Grid.x) * Grid.y * Grid.z;
  Stream S;
  DeviceBuffer Counts(Blocks * sizeof(uint32_t));
  Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
  uint64_t Spin = 0;
  void *Args[] = {Counts.slot(), &Spin};
  LaunchConfig Config{Grid, {32, 1, 1}, 0, S.get(), Mode::Original};
  Launch L = Rt.launch(K, Config, Args);
  Check.expect(L.wait() == LaunchState::Done, "original: wait() not Done");
  Check.expect(L.lastRunTime().has_value() == Rt.options().TimeRunsOnDevice,
               "original: a device time where runs are not timed, or none "
               "where they are");
  std::vector<uint8_t> Final = Counts.download(S.get());
  std::string Error =
      checkCounts(reinterpret_cast<const uint32_t *>(Final.data()), Blocks);
  Check.expect(Error.empty(), "original kernel: " + Error);
  bool Refused = false;
  try {
    L.pause();
  } catch (const baton::Error &E) {
    Refused = E.kind() == ErrorKind::InvalidState;
  }
  Check.expect(Refused, "pause() of an Original launch did not throw "
                        "InvalidState");
}

/// Where runs are timed: a launch started paused has no run time before its
/// first run, and has one after it.
void checkPausedStartTime(Runtime &Rt, const Kernel &K, Checker &Check) {
  constexpr size_t Blocks = 132 * 64;
  Stream S;
  DeviceBuffer Counts(Blocks * sizeof(uint32_t));
  Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
  uint64_t Spin = 2000;
  void *Args[] = {Counts.slot(), &Spin};
  LaunchConfig Config{{uint32_t(Blocks), 1, 1}, {64, 1, 1}, 0, S.get(),
                      Mode::Ptb};
  Config.StartPaused = true;
  Launch L = Rt.launch(K, Config, Args);
  Check.expect(!L.lastRunTime(),
               "timed runs: a run time before a paused launch's first run");
  L.resume();
  Check.expect(L.wait() == LaunchState::Done, "timed runs: not Done");
  std::optional<std::chrono::nanoseconds> Run = L.lastRunTime();
  Check.expect(Run && Run->count() > 0,
               "timed runs: no run time after a paused launch's first run");
  std::printf("%-4s timed runs: a paused launch's first run took %.1f us\n",
              Run ? "ok" : "FAIL",
              Run ? std::chrono::duration<double, std::micro>(*Run).count()
                  : 0.0);
  std::fflush(stdout);
}

/// A launch asked not to time its runs (LaunchConfig::TimeRuns, as the
/// scheduler asks for most launches of a quiet device) has no run time, PTB
/// or original, and still runs every block once across a pause.
void checkUntimedLaunches(Runtime &Rt, const Kernel &K, Checker &Check) {
  constexpr size_t Blocks = 132 * 64;
  for (Mode M : {Mode::Ptb, Mode::Original}) {
    const char *Name = M == Mode::Ptb ? "PTB" : "original";
    Stream S;
    DeviceBuffer Counts(Blocks * sizeof(uint32_t));
    Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
    uint64_t Spin = 2000;
    void *Args[] = {Counts.slot(), &Spin};
    LaunchConfig Config{{uint32_t(Blocks), 1, 1}, {64, 1, 1}, 0, S.get(), M};
    Config.TimeRuns = false;
    Config.StartPaused = M == Mode::Ptb; // a run after a pause, too
    Launch L = Rt.launch(K, Config, Args);
    if (M == Mode::Ptb)
      L.resume();
    Check.expect(L.wait() == LaunchState::Done,
                 std::string("untimed ") + Name + ": not Done");
    Check.expect(!L.lastRunTime(),
                 std::string("untimed ") + Name + ": a run time");
    std::vector<uint8_t> Final = Counts.download(S.get());
    std::string Error =
        checkCounts(reinterpret_cast<const uint32_t *>(Final.data()), Blocks);
    Check.expect(Error.empty(), std::string("untimed ") + Name + ": " + Error);
    std::printf("%-4s untimed %s launch: no run time, every block once\n",
                Error.empty() && !L.lastRunTime() ? "ok" : "FAIL", Name);
    std::fflush(stdout);
  }
}

/// Runs \p Picked again (and the vacate storm, if \p Vacate) on a runtime
/// made with \p Options, their names prefixed with \p Prefix: what those
/// options change must keep every block running once.
void rerunCases(const RuntimeOptions &Options, const std::string &Prefix,
                const char *PtxPath, std::initializer_list<Case> Picked,
                bool Vacate, Checker &Check, Watchdog &Dog, uint64_t &Seed) {
  Runtime Rt(Options);
  Module M = Rt.loadFile(PtxPath);
  Kernel K = M.kernel("record");
  for (const Case &C : Picked) {
    std::string Name = Prefix + C.Name;
    Case Renamed = C;
    Renamed.Name = Name.c_str();
    runCase(Rt, K, Renamed, Check, Dog, Seed++);
  }
  if (Vacate)
    runVacateCase(Rt, K, Check, Dog, Seed++, Prefix);
  // The default runtime's original launch is timed (main); this one's
  // original has no device time.
  if (!Options.TimeRunsOnDevice)
    runOriginal(Rt, K, Check);
}

/// A PTB variant built for an earlier task ABI ignores first shares, and
/// the runtime must not hand it any: \p PtxPath's module with the ABI
/// marker (task.h) taken out and the variant's read of `first_share`
/// replaced by 0, as such a variant would start at `next`. Every block must
/// still run once (with shares written, each worker's would be skipped).
void runOlderAbi(const Kernel &Current, const char *PtxPath, Checker &Check,
                 Watchdog &Dog, uint64_t &Seed) {
  std::ifstream In(PtxPath);
  std::stringstream Text;
  Text << In.rdbuf();
  std::string Older = std::regex_replace(
      Text.str(),
      std::regex(R"(ld\.global\.u32 (%\w+_share), \[(%\w+_task)\+)" +
                 std::to_string(BATON_TASK_OFFSET_FIRST_SHARE) + R"(\];)"),
      "mov.u32 $1, 0;");
  Older = std::regex_replace(
      Older, std::regex(std::string(R"(\.weak \.global [^;]*)") +
                        BATON_ABI_MARKER_SUFFIX + ";"),
      "");
  Check.expect(Older != Text.str(), "older-ABI variant: the edit found the "
                                    "share's load and the marker");
  Check.expect(Current.ptbTakesFirstShares(),
               "the current variant takes first shares");
  Runtime Rt;
  Module M = Rt.loadPtx(Older);
  Kernel K = M.kernel("record");
  Check.expect(!K.ptbTakesFirstShares(),
               "a variant without the ABI marker takes no first shares");
  Case C = Cases[0];
  C.Name = "ptb 1-D, all workers, older-ABI variant";
  runCase(Rt, K, C, Check, Dog, Seed++);
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    std::fprintf(stderr, "usage: %s RECORD_BATON_PTX\n", Argv[0]);
    return 2;
  }
  Checker Check;
  try {
    auto Rt = runtimeOrSkip();
    if (!Rt)
      return SkipExitCode;
    Watchdog Dog("exactly_once", std::chrono::seconds(240));
    std::printf("exactly_once on %s\n", describeDevice(*Rt).c_str());
    Module M = Rt->loadFile(Argv[1]);
    Kernel K = M.kernel("record");
    if (!K.hasVariant(Mode::Ptb) || !K.hasVariant(Mode::Slices)) {
      std::printf("FAIL: %s has no record__baton_ptb/record__baton_slice "
                  "(was it transformed by baton-ptx?)\n0 passed, 1 failed\n",
                  Argv[1]);
      return 1;
    }
    Dog.step("original");
    runOriginal(*Rt, K, Check);
    if (Rt->options().TimeRunsOnDevice)
      checkPausedStartTime(*Rt, K, Check);
    checkUntimedLaunches(*Rt, K, Check);
    uint64_t Seed = 1;
    for (const Case &C : Cases)
      runCase(*Rt, K, C, Check, Dog, Seed++);
    runHalfVacated(*Rt, K, Check, Dog);
    runVacateCase(*Rt, K, Check, Dog, Seed++);
    runResumedWhileUserSyncs(*Rt, K, Check, Dog);
    runRepeatedShapes(*Rt, K, Check, Dog, Seed++);
    runOriginalInstead(*Rt, K, Check, Dog);
    // The finalize kernel as GPUs before Hopper get it: a plain launch.
    RuntimeOptions PlainOptions;
    PlainOptions.DependentFinalize = false;
    rerunCases(PlainOptions, "plain finalize, ", Argv[1], {Cases[0], Cases[3]},
               /*Vacate=*/false, Check, Dog, Seed);
    // The flag raised by the copy engine (a pinned word copied, or a
    // memset for a watermark) rather than a stream memory operation.
    RuntimeOptions CopyOptions;
    CopyOptions.Signal = PreemptSignal::Memcpy;
    rerunCases(CopyOptions, "copy-engine flag, ", Argv[1], {Cases[0], Cases[2]},
               /*Vacate=*/true, Check, Dog, Seed);
    // Runs timed by the host alone (the default times them on the device).
    RuntimeOptions HostTimedOptions;
    HostTimedOptions.TimeRunsOnDevice = false;
    rerunCases(HostTimedOptions, "host-timed runs, ", Argv[1],
               {Cases[0], Cases[8]}, /*Vacate=*/false, Check, Dog, Seed);
    runOlderAbi(K, Argv[1], Check, Dog, Seed);
  } catch (const std::exception &E) {
    Check.fail(std::string("exception: ") + E.what());
  }
  return Check.summary();
}
