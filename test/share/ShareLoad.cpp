//===- ShareLoad.cpp - Latency-critical and best-effort GPU load ----------===//

#include "ShareLoad.h"

#include "GpuTest.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <numeric>
#include <random>

using namespace baton;
using namespace baton::sched;
using namespace baton::test;
using baton::detail::driver;

namespace {

/// Blocks of \p Counts whose count is not \p Expected.
uint64_t countsOff(const DeviceBuffer &Counts, CUstream S, uint32_t Expected) {
  std::vector<uint8_t> Bytes = Counts.download(S);
  const auto *C = reinterpret_cast<const uint32_t *>(Bytes.data());
  return std::count_if(C, C + Bytes.size() / 4,
                       [&](uint32_t N) { return N != Expected; });
}

void shareCheck(baton_share_status S, const char *Call) {
  if (S != BATON_SHARE_OK)
    throw std::runtime_error(std::string(Call) + ": " +
                             baton_share_last_error());
}

} // namespace

uint64_t baton::test::monotonicNs() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return uint64_t(T.tv_sec) * 1000000000u + uint64_t(T.tv_nsec);
}

LcResult baton::test::runLatencyCritical(const Kernel &K, baton_share Share,
                                         const LcOptions &O,
                                         const std::function<bool()> &Stop) {
  LcResult R;
  Stream S(/*Priority=*/-1);
  DeviceBuffer Counts(O.Blocks * sizeof(uint32_t));
  Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
  std::mt19937_64 Rng(monotonicNs());
  std::uniform_real_distribution<double> Gap(std::log(O.GapMinUs),
                                             std::log(O.GapMaxUs));
  CUfunction F = K.function(Mode::Original);
  uint64_t Spin = O.SpinNs;
  CUdeviceptr Ptr = Counts.get();
  void *Args[] = {&Ptr, &Spin};
  uint32_t Requests = 0;
  while (!Stop()) {
    sleepMicros(std::exp(Gap(Rng)));
    uint64_t Start = monotonicNs();
    uint64_t Ticket = 0;
    if (Share)
      shareCheck(baton_share_announce(Share, &Ticket), "baton_share_announce");
    check(driver().cuLaunchKernel(F, O.Blocks, 1, 1, 64, 1, 1, 0, S.get(),
                                  Args, nullptr),
          "cuLaunchKernel");
    if (Share)
      shareCheck(baton_share_end_on_stream(Share, Ticket, S.get()),
                 "baton_share_end_on_stream");
    S.synchronize();
    R.LatencyUs.push_back(double(monotonicNs() - Start) / 1000);
    ++Requests;
  }
  R.BlocksOff = countsOff(Counts, S.get(), Requests);
  return R;
}

BeResult baton::test::runBestEffort(Runtime &Rt, const Kernel &K,
                                    baton_share Share, const BeOptions &O,
                                    const std::function<bool()> &Stop) {
  BeResult R;
  Stream S;
  DeviceBuffer Counts(size_t(O.Blocks) * sizeof(uint32_t));
  Counts.upload(std::vector<uint8_t>(Counts.size(), 0), S.get());
  {
    SchedulerService Svc(Rt);
    if (Share)
      Svc.yieldWhile([Share] { return baton_share_should_yield(Share) == 1; });
    LaunchConfig Config;
    Config.Grid = {O.Blocks, 1, 1};
    Config.Block = {64, 1, 1};
    Config.Stream = S.get();
    Config.FirstRunOnPrivateStream = Share && !O.FirstRunsOnUserStream;
    Config.DependentFinalize = !Share || O.DependentFinalize;
    uint64_t Start = monotonicNs();
    while (!Stop()) {
      for (uint32_t I = 0; I < O.Batch; ++I) {
        Work W = makeWork(RuntimeWork::make(K, Config, Counts.get(), O.SpinNs),
                          PriorityClass::BestEffort, /*Queue=*/1);
        W.IssueAtOnce = true;
        Svc.submit(std::move(W));
        ++R.Launches;
      }
      if (Share)
        shareCheck(baton_share_count_launches(Share, O.Batch),
                   "baton_share_count_launches");
      Svc.waitIdle();
    }
    S.synchronize();
    R.Seconds = double(monotonicNs() - Start) / 1e9;
    R.Stats = Svc.stats();
  }
  R.BlocksOff = countsOff(Counts, S.get(), uint32_t(R.Launches));
  return R;
}

Percentiles baton::test::percentiles(std::vector<double> V) {
  Percentiles P;
  if (V.empty())
    return P;
  std::sort(V.begin(), V.end());
  auto At = [&](double Q) {
    return V[std::min(V.size() - 1, size_t(Q * double(V.size())))];
  };
  P.P50 = At(0.50);
  P.P99 = At(0.99);
  P.Max = V.back();
  P.Mean = std::accumulate(V.begin(), V.end(), 0.0) / double(V.size());
  return P;
}
