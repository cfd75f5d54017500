//===- preempt_latency.cpp - From pause request to the last worker out ----===//
//
// Usage: preempt_latency RECORD_BATON_PTX [PAUSES]
//
// Runs the `record` kernel's PTB variant with every co-resident worker and
// blocks that spin for 5 us, 50 us, 200 us and 1 ms, pauses it at random
// moments, and times Launch::pause() on the host: from the request to the
// moment the runtime has observed the last worker leave (the kernel and its
// finalize step complete). A worker that has just taken a block must finish
// it, so the block duration is the floor of the worst case; what the table
// shows above that is the cost of signalling and observing. Both ways of
// raising the flag are measured: a stream memory write and a pinned-memory
// copy, each on the high-priority control stream.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"

#include <algorithm>
#include <cstdio>
#include <random>

using namespace baton;
using namespace baton::test;

namespace {

struct Sample {
  double P50, P99, Max;
  size_t N;
};

Sample measure(Runtime &Rt, const Kernel &K, uint64_t SpinNs,
               unsigned Pauses, Watchdog &Dog) {
  Stream S;
  LaunchConfig Config;
  Config.Block = {64, 1, 1};
  Config.Stream = S.get();
  Config.LaunchMode = Mode::Ptb;
  Config.Grid = {1u << 21, 1, 1};
  uint32_t Workers = Rt.defaultWidth(K, Config);
  // Enough blocks for ~50 ms of work per launch, within a 2M-block counter.
  uint64_t Waves = std::max<uint64_t>(4, 50'000'000 / SpinNs);
  Config.Grid.x = uint32_t(std::min<uint64_t>(Waves * Workers, 1u << 21));
  DeviceBuffer Counts(size_t(Config.Grid.x) * sizeof(uint32_t));
  uint64_t Spin = SpinNs;
  void *Args[] = {Counts.slot(), &Spin};

  std::mt19937_64 Rng(SpinNs);
  std::uniform_real_distribution<double> Gap(100.0, 1000.0);
  std::vector<double> Micros;
  auto L = std::make_unique<Launch>(Rt.launch(K, Config, Args));
  while (Micros.size() < Pauses) {
    sleepMicros(Gap(Rng) + double(SpinNs) / 1e3);
    auto T0 = std::chrono::steady_clock::now();
    bool Paused = L->pause();
    auto T1 = std::chrono::steady_clock::now();
    if (!Paused) { // the launch ran out of blocks: start another
      Dog.step("relaunch");
      L = std::make_unique<Launch>(Rt.launch(K, Config, Args));
      continue;
    }
    Micros.push_back(std::chrono::duration<double, std::micro>(T1 - T0).count());
    L->resume();
  }
  L.reset(); // completes the last launch
  Sample Out;
  Out.N = Micros.size();
  Out.Max = *std::max_element(Micros.begin(), Micros.end());
  Out.P99 = percentile(Micros, 0.99);
  Out.P50 = percentile(Micros, 0.50);
  return Out;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2 || Argc > 3) {
    std::fprintf(stderr, "usage: %s RECORD_BATON_PTX [PAUSES]\n", Argv[0]);
    return 2;
  }
  unsigned Pauses = Argc == 3 ? unsigned(std::stoul(Argv[2])) : 300;
  try {
    std::printf("%-9s %-12s %6s %10s %10s %10s %12s\n", "block", "signal",
                "pauses", "p50 us", "p99 us", "max us", "p99 - floor");
    for (PreemptSignal Signal :
         {PreemptSignal::StreamWrite, PreemptSignal::Memcpy}) {
      RuntimeOptions Options;
      Options.Signal = Signal;
      auto Rt = runtimeOrSkip(Options);
      if (!Rt)
        return SkipExitCode;
      Watchdog Dog("preempt_latency", std::chrono::seconds(180));
      if (Signal == PreemptSignal::StreamWrite)
        std::fprintf(stderr, "preempt_latency on %s\n",
                     describeDevice(*Rt).c_str());
      Module M = Rt->loadFile(Argv[1]);
      Kernel K = M.kernel("record");
      for (uint64_t SpinNs : {5'000ull, 50'000ull, 200'000ull, 1'000'000ull}) {
        Dog.step("block " + std::to_string(SpinNs) + " ns");
        Sample R = measure(*Rt, K, SpinNs, Pauses, Dog);
        std::printf("%6llu us %-12s %6zu %10.1f %10.1f %10.1f %12.1f\n",
                    (unsigned long long)(SpinNs / 1000),
                    Signal == PreemptSignal::StreamWrite ? "stream-write"
                                                         : "memcpy",
                    R.N, R.P50, R.P99, R.Max, R.P99 - double(SpinNs) / 1e3);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception &E) {
    std::printf("FAIL: preempt_latency: %s\n", E.what());
    return 1;
  }
  return 0;
}
