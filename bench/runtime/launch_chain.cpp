//===- launch_chain.cpp - What a launch costs on the device timeline -------===//
//
// Usage: launch_chain RECORD_BATON_PTX [LAUNCHES]
//
// A training step is a chain of kernels on one stream, issued far ahead of
// the device. Whatever the runtime adds between two kernels of that chain
// (task set-up, waits between streams, a step after the kernel) stretches the
// step even when nobody preempts, and it is paid per launch, so it shows on
// short kernels first. This benchmark issues LAUNCHES back-to-back launches
// of `record` (one wave of blocks spinning for the kernel time asked for,
// so that the PTB loop's own cost per block, variant_overhead's subject,
// stays out of it) on one stream, waits once, and reports the time per
// launch:
//
//   original   cuLaunchKernel of the original kernel, the floor;
//   ptb        Runtime::launch of the PTB variant at full width, the
//              handles of the last 32 kept (dropping the oldest waits for
//              it, so this path's host time includes that wait);
//   scheduled  the same work submitted to a SchedulerService as a
//              best-effort stream's launches (IssueAtOnce, as the launch
//              router and the Python binding submit it).
//
// The column "+us" is the time per launch above the original's: the cost of
// a launch nobody preempts. "host us" is the submitting thread's time per
// launch (the issue loop alone, before the wait): where it exceeds the
// device's time per launch, a job that issues from one thread is host-bound.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"

#include "baton/SchedulerService.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <functional>

using namespace baton;
using namespace baton::sched;
using namespace baton::test;
using baton::detail::check;
using baton::detail::driver;

namespace {

using Clock = std::chrono::steady_clock;

struct PerLaunch {
  double Total = 0; ///< issue and wait, per launch
  double Host = 0;  ///< the issue loop alone, per launch
};

double median(std::vector<double> Samples) {
  std::sort(Samples.begin(), Samples.end());
  return Samples[Samples.size() / 2];
}

/// Medians over \p Reps of the time per launch of \p Issue (which issues
/// \p Launches launches and returns once they are queued) up to \p Wait.
PerLaunch microsPerLaunch(unsigned Launches, unsigned Reps,
                          const std::function<void()> &Issue,
                          const std::function<void()> &Wait) {
  std::vector<double> Totals, Hosts;
  auto Micros = [](Clock::duration D) {
    return std::chrono::duration<double, std::micro>(D).count();
  };
  for (unsigned R = 0; R < Reps + 1; ++R) {
    auto T0 = Clock::now();
    Issue();
    auto T1 = Clock::now();
    Wait();
    if (R == 0) // the first repetition warms up
      continue;
    Totals.push_back(Micros(Clock::now() - T0) / Launches);
    Hosts.push_back(Micros(T1 - T0) / Launches);
  }
  return {median(Totals), median(Hosts)};
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2 || Argc > 3) {
    std::fprintf(stderr, "usage: %s RECORD_BATON_PTX [LAUNCHES]\n", Argv[0]);
    return 2;
  }
  unsigned Launches = Argc == 3 ? unsigned(std::stoul(Argv[2])) : 400;
  const unsigned Reps = 5;
  // As the launch router does when scheduling (LaunchRouter.cpp).
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
  try {
    auto Rt = runtimeOrSkip();
    if (!Rt)
      return SkipExitCode;
    Watchdog Dog("launch_chain", std::chrono::seconds(240));
    std::fprintf(stderr, "launch_chain on %s\n", describeDevice(*Rt).c_str());
    Module M = Rt->loadFile(Argv[1]);
    Kernel K = M.kernel("record");
    Stream S;

    std::printf("%-9s %-10s %12s %9s %8s %9s\n", "kernel", "path",
                "us/launch", "+us", "ratio", "host us");
    for (uint64_t KernelUs : {10ull, 30ull, 100ull}) {
      LaunchConfig Config;
      Config.Block = {64, 1, 1};
      Config.Stream = S.get();
      Config.LaunchMode = Mode::Ptb;
      Config.Grid = {1u << 20, 1, 1};
      uint32_t Workers = Rt->defaultWidth(K, Config);
      Config.Grid.x = Workers;
      uint64_t SpinNs = KernelUs * 1000;
      DeviceBuffer Counts(size_t(Config.Grid.x) * sizeof(uint32_t));
      void *Args[] = {Counts.slot(), &SpinNs};
      auto WaitStream = [&] { S.synchronize(); };
      Dog.step(std::to_string(KernelUs) + " us: original");

      CUfunction Original = K.function(Mode::Original);
      PerLaunch Floor = microsPerLaunch(
          Launches, Reps,
          [&] {
            for (unsigned I = 0; I < Launches; ++I)
              check(driver().cuLaunchKernel(Original, Config.Grid.x, 1, 1, 64,
                                            1, 1, 0, S.get(), Args, nullptr),
                    "cuLaunchKernel");
          },
          WaitStream);

      Dog.step(std::to_string(KernelUs) + " us: ptb");
      // Each held launch keeps a private stream (for a resume), and the
      // runtime has RuntimeOptions::PrivateStreams of them: a program keeps
      // a window of handles, as the scheduler does. Dropping the oldest
      // waits for it, far behind the launches being issued.
      constexpr size_t Window = 32;
      std::deque<Launch> Held;
      PerLaunch Ptb = microsPerLaunch(
          Launches, Reps,
          [&] {
            for (unsigned I = 0; I < Launches; ++I) {
              if (Held.size() == Window)
                Held.pop_front();
              Held.push_back(Rt->launch(K, Config, Args));
            }
          },
          [&] {
            WaitStream();
            Held.clear();
          });

      Dog.step(std::to_string(KernelUs) + " us: scheduled");
      SchedulerOptions Options;
      Options.ForgetDoneWork = true;
      Options.LaunchesAheadWhenQuiet = 4;
      SchedulerService Service(*Rt, Options);
      LaunchConfig Routed = Config;
      Routed.LaunchMode = Mode::Original; // the policy picks the form
      PerLaunch Scheduled = microsPerLaunch(
          Launches, Reps,
          [&] {
            for (unsigned I = 0; I < Launches; ++I) {
              Work W = makeWork(RuntimeWork::make(K, Routed, Counts.get(),
                                                  SpinNs),
                                PriorityClass::BestEffort, /*Queue=*/1);
              W.IssueAtOnce = true;
              Service.submit(std::move(W));
            }
          },
          [&] {
            WaitStream();
            Service.waitIdle();
          });

      for (auto [Path, Us] : {std::pair{"original", Floor},
                              std::pair{"ptb", Ptb},
                              std::pair{"scheduled", Scheduled}})
        std::printf("%6llu us %-10s %12.2f %9.2f %8.3f %9.2f\n",
                    (unsigned long long)KernelUs, Path, Us.Total,
                    Us.Total - Floor.Total, Floor.Total / Us.Total, Us.Host);
      std::fflush(stdout);
    }
  } catch (const std::exception &E) {
    std::printf("FAIL: launch_chain: %s\n", E.what());
    return 1;
  }
  return 0;
}
