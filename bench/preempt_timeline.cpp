//===- preempt_timeline.cpp - Where the time of one preemption goes -------===//
//
// preempt_latency measures request -> last worker out from the host. This
// splits that interval with device timestamps (%globaltimer), so that each
// part can be compared with its model:
//
//   signal  request (host) -> the flag visible on the device, timed by a
//           one-thread watcher kernel that spins on the flag beside the
//           PTB launch;
//   drain   flag visible -> the end of the last virtual block;
//   notice  end of the last block -> the host sees the launch complete.
//
// signal + drain, request -> last worker out, is issue 3's preemption
// latency; each row says whether its p99 is within the original kernel's
// block duration + 20 us. Host stalls after the request (the notice) are
// not part of it; on a virtual machine they are most of the tail of
// `total`.
//
// The kernel is timed_blocks (test/variants-gpu/kernels/timeline.cu): every
// block spins for a set time and records its start and end. The host clock
// is mapped onto the device's by a calibration kernel (clock_probe) that
// answers a host write with its time; the error is half the round trip.
// Also reported: blocks that started after the flag was visible (claims that
// read a stale flag), the block duration in the original kernel and inside
// the worker loop, and the loop's gap between one block's end and the next
// block's start on the same worker slot.
//
// usage: preempt_timeline TRANSFORMED_TIMELINE_PTX [PAUSES] [TIMELINE_CSV]
//                         [KERNEL]
// KERNEL is timed_blocks (default: every thread polls the timer) or
// timed_blocks_quiet (one thread per warp does). Rows: all workers that
// fit, then BATON_TIMELINE_PER_SM (a list, default "4,1") workers per SM.
// With TIMELINE_CSV, the blocks around one preemption per spin are written
// there (spin_us,pause,start_us,end_us relative to the request, plus the
// flag and notice events) for bench/plot_preempt_timeline.py.
//
//===----------------------------------------------------------------------===//
#include "GpuHarness.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

using namespace baton::gpu;

namespace {

using Clock = std::chrono::steady_clock;

int64_t hostNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

double percentile(std::vector<double> V, double P) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  return V[std::min(V.size() - 1, static_cast<size_t>(P * V.size()))];
}

/// Host memory that the device reads and writes (mapped, pinned).
struct MappedWords {
  MappedWords() {
    check(driver().cuMemHostAlloc(&Host, sizeof(uint64_t) * 4,
                                  CU_MEMHOSTALLOC_DEVICEMAP |
                                      CU_MEMHOSTALLOC_PORTABLE),
          "mapped host memory");
    Words = static_cast<volatile uint64_t *>(Host);
    check(driver().cuMemHostGetDevicePointer(&Device, Host, 0),
          "mapped device pointer");
  }
  ~MappedWords() { driver().cuMemFreeHost(Host); }
  void *Host = nullptr;
  volatile uint64_t *Words = nullptr;
  CUdeviceptr Device = 0;
};

/// device time - host time, in ns, from the calibration round with the
/// shortest round trip; \p ErrorNs is half that round trip.
int64_t calibrate(Gpu &G, CUfunction Probe, CUstream S, int64_t &ErrorNs,
                  int Rounds) {
  MappedWords M;
  int64_t Best = 0;
  ErrorNs = INT64_MAX;
  for (int Round = 0; Round < Rounds; ++Round) {
    M.Words[0] = 0;
    M.Words[1] = 0;
    CUdeviceptr Go = M.Device, Now = M.Device + sizeof(uint64_t);
    void *Args[] = {&Go, &Now};
    check(driver().cuLaunchKernel(Probe, 1, 1, 1, 1, 1, 1, 0, S, Args,
                                  nullptr),
          "clock_probe launch");
    spinMicros(200); // let it start spinning
    int64_t T1 = hostNanos();
    M.Words[0] = 1;
    while (M.Words[1] == 0)
      if (hostNanos() - T1 > 1'000'000'000)
        throw std::runtime_error("clock_probe did not answer within 1 s");
    int64_t T2 = hostNanos();
    G.waitFor(S, "clock_probe");
    int64_t Half = (T2 - T1) / 2;
    if (Half < ErrorNs) {
      ErrorNs = Half;
      Best = static_cast<int64_t>(M.Words[1]) - (T1 + Half);
    }
  }
  return Best;
}

/// What timed_blocks records per virtual block; Previous is the end of the
/// block before it on the same worker (0 for a worker's first).
struct BlockStamp {
  int64_t Start, End, Previous, Unused;
};

/// The stamps of the blocks that ran: v < min(next, end) of the task.
std::vector<BlockStamp> ranBlocks(KernelRun &R) {
  baton_task T = R.readTask();
  uint32_t Ran = std::min(T.next, T.end);
  std::vector<uint8_t> Raw = R.snapshot()[0];
  std::vector<BlockStamp> Out(Ran);
  std::memcpy(Out.data(), Raw.data(), Ran * sizeof(BlockStamp));
  return Out;
}

double medianDurationUs(const std::vector<BlockStamp> &Blocks) {
  std::vector<double> D;
  for (const BlockStamp &B : Blocks)
    D.push_back((B.End - B.Start) / 1e3);
  return percentile(D, 0.5);
}

/// Shared memory outlives a launch, so a worker's first block may find the
/// tag of an earlier launch: a previous end before this launch's first
/// start is not this worker's.
bool hasPrevious(const BlockStamp &B, int64_t FirstStart) {
  return B.Previous >= FirstStart;
}

int64_t firstStart(const std::vector<BlockStamp> &Blocks) {
  int64_t First = INT64_MAX;
  for (const BlockStamp &B : Blocks)
    First = std::min(First, B.Start);
  return First;
}

/// The worker loop's time per block: from the end of a worker's block to
/// the start of its next one, percentile \p P.
double gapUs(const std::vector<BlockStamp> &Blocks, double P) {
  int64_t First = firstStart(Blocks);
  std::vector<double> Gaps;
  for (const BlockStamp &B : Blocks)
    if (hasPrevious(B, First))
      Gaps.push_back((B.Start - B.Previous) / 1e3);
  return percentile(Gaps, P);
}

LaunchSpec timedBlocks(const std::string &Module, const std::string &Kernel,
                       uint32_t Blocks, unsigned SpinUs) {
  return spinKernelSpec(Module, Kernel, Blocks, "i64", 4ull * Blocks,
                        SpinUs * 1000, "preempt_timeline");
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: preempt_timeline TIMELINE_PTX [PAUSES] [CSV] [KERNEL]\n");
    return 2;
  }
  std::string Why;
  if (!driver().load(Why)) {
    std::printf("SKIPPED: no CUDA device (%s)\n", Why.c_str());
    return 77;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string Module = argv[1];
  const std::string Kernel = argc > 4 ? argv[4] : "timed_blocks";
  const int Pauses = argc > 2 ? std::atoi(argv[2]) : 100;
  std::ofstream Csv;
  if (argc > 3) {
    Csv.open(argv[3]);
    Csv << "spin_us,what,start_us,end_us\n";
  }
  Gpu G;
  CudaDriver &D = driver();
  CUmodule Mod = G.module(Module);
  CUfunction Watch = nullptr, Probe = nullptr;
  check(D.cuModuleGetFunction(&Watch, Mod, "watch_flag"), "watch_flag");
  check(D.cuModuleGetFunction(&Probe, Mod, "clock_probe"), "clock_probe");
  CUstream Side = nullptr;
  check(D.cuStreamCreateWithPriority(&Side, CU_STREAM_NON_BLOCKING, 0),
        "watcher stream");
  CUdeviceptr Seen = 0;
  check(D.cuMemAlloc(&Seen, 2 * sizeof(uint64_t)), "watcher words");
  CUdeviceptr Abandon = Seen + sizeof(uint64_t);

  int64_t ErrorNs = 0;
  int64_t Offset = calibrate(G, Probe, Side, ErrorNs, 20);
  std::printf("device: %s, %d SMs; %d pauses per row; host->device clock "
              "within +-%.1f us\n",
              G.name().c_str(), G.smCount(), Pauses, ErrorNs / 1e3);
  std::printf("%-5s %7s %8s %8s %-15s | %-23s | %-23s | %-23s | %-23s | "
              "%-17s | %s\n",
              "spin", "workers", "orig blk", "ptb blk", "gap p50/p99",
              "total p50/p99/max", "to last out p50/p99/max",
              "signal p50/p99/max", "drain p50/p99/max", "notice p50/p99",
              "late starts (pauses with any), their claim after flag p50/p99");
  struct Row {
    unsigned SpinUs;
    uint32_t PerSm; // 0: all that fit
  };
  std::vector<Row> Rows;
  for (unsigned SpinUs : {5u, 50u, 200u, 1000u})
    Rows.push_back({SpinUs, 0});
  // Fewer workers per SM (BATON_TIMELINE_PER_SM, default "4,1").
  std::vector<uint32_t> PerSmList = {4, 1};
  if (const char *Env = std::getenv("BATON_TIMELINE_PER_SM")) {
    PerSmList.clear();
    for (char *P = const_cast<char *>(Env); *P;) {
      char *End = nullptr;
      PerSmList.push_back(static_cast<uint32_t>(std::strtoul(P, &End, 10)));
      P = *End ? End + 1 : End;
    }
  }
  for (unsigned SpinUs : {5u, 50u, 200u})
    for (uint32_t PerSm : PerSmList)
      Rows.push_back({SpinUs, PerSm});
  for (auto [SpinUs, PerSmWanted] : Rows) {
    LaunchSpec S = timedBlocks(Module, Kernel, 0xFFFFF, SpinUs);
    KernelRun R(G, Module, S);
    // All that fit but one SM's worth (room for the watcher), or PerSm per SM.
    uint32_t PerSm = R.maxPtbWorkers() / G.smCount();
    uint32_t Workers = PerSmWanted ? PerSmWanted * G.smCount()
                                   : R.maxPtbWorkers() - PerSm;

    // Block durations: 20 waves as the original, and as one PTB launch.
    double OrigUs = 0, PtbUs = 0, GapP50 = 0, GapP99 = 0;
    {
      KernelRun O(G, Module, timedBlocks(Module, Kernel, Workers * 20, SpinUs));
      O.reset();
      O.launchOriginal(G.work());
      G.waitFor(G.work(), "original waves");
      std::vector<uint8_t> Raw = O.snapshot()[0];
      std::vector<BlockStamp> All(Workers * 20);
      std::memcpy(All.data(), Raw.data(), All.size() * sizeof(BlockStamp));
      OrigUs = medianDurationUs(All);
      KernelRun P(G, Module, timedBlocks(Module, Kernel, Workers * 20, SpinUs));
      P.reset();
      P.writeTaskForPtb();
      P.launchPtbKernel(G.work(), Workers);
      G.waitFor(G.work(), "PTB waves");
      std::vector<BlockStamp> Ptb = ranBlocks(P);
      PtbUs = medianDurationUs(Ptb);
      GapP50 = gapUs(Ptb, 0.5);
      GapP99 = gapUs(Ptb, 0.99);
    }

    std::vector<double> Total, LastOut, Signal, Drain, Notice, LateClaims;
    unsigned LateTotal = 0, LatePauses = 0;
    for (int I = 0; I < Pauses; ++I) {
      // The device clock drifts from the host's by microseconds a second.
      Offset = calibrate(G, Probe, Side, ErrorNs, 3);
      R.reset();
      R.writeTaskForPtb();
      check(D.cuMemsetD32(Seen, 0, 4), "watcher reset");
      CUdeviceptr Flag = R.taskPointer() + offsetof(baton_task, preempt);
      CUdeviceptr SeenAt = Seen;
      void *WatchArgs[] = {&Flag, &Abandon, &SeenAt};
      check(D.cuLaunchKernel(Watch, 1, 1, 1, 1, 1, 1, 0, Side, WatchArgs,
                             nullptr),
            "watch_flag launch");
      R.launchPtbKernel(G.work(), Workers);
      spinMicros(300 + (I * 37) % (2 * SpinUs + 1));
      int64_t T0 = hostNanos();
      check(D.cuStreamWriteValue32(G.control(), Flag, BATON_PREEMPT_ALL,
                                   CU_STREAM_WRITE_VALUE_DEFAULT),
            "preempt write");
      while (D.cuStreamQuery(G.work()) == CUDA_ERROR_NOT_READY) {
      }
      int64_t T1 = hostNanos();
      G.waitFor(G.work(), "preempted launch");
      check(D.cuStreamWriteValue32(G.control(), Abandon, 1,
                                   CU_STREAM_WRITE_VALUE_DEFAULT),
            "watcher release");
      G.waitFor(Side, "watcher");
      G.waitFor(G.control(), "control");
      uint64_t FlagSeen = 0;
      check(D.cuMemcpyDtoH(&FlagSeen, Seen, sizeof FlagSeen), "watcher read");
      std::vector<BlockStamp> Blocks = ranBlocks(R);
      baton_task T = R.readTask();
      if (T.next >= T.end)
        throw std::runtime_error("launch finished before it was preempted");
      int64_t LastEnd = 0, First = firstStart(Blocks);
      unsigned Late = 0;
      for (const BlockStamp &B : Blocks) {
        LastEnd = std::max(LastEnd, B.End);
        if (B.Start > static_cast<int64_t>(FlagSeen)) {
          ++Late;
          if (hasPrevious(B, First)) // its claim followed that block's end
            LateClaims.push_back(
                (B.Previous - static_cast<int64_t>(FlagSeen)) / 1e3);
        }
      }
      int64_t Request = T0 + Offset, Noticed = T1 + Offset;
      Total.push_back((T1 - T0) / 1e3);
      LastOut.push_back((LastEnd - Request) / 1e3);
      Signal.push_back((static_cast<int64_t>(FlagSeen) - Request) / 1e3);
      Drain.push_back((LastEnd - static_cast<int64_t>(FlagSeen)) / 1e3);
      Notice.push_back((Noticed - LastEnd) / 1e3);
      LateTotal += Late;
      LatePauses += Late > 0;
      if (Csv.is_open() && I == Pauses / 2 && !PerSmWanted) {
        // Blocks that overlap [request - 2 blocks, notice], per spin.
        int64_t From = Request - static_cast<int64_t>(2 * PtbUs * 1e3);
        for (const BlockStamp &B : Blocks)
          if (B.End >= From)
            Csv << SpinUs << ",block," << (B.Start - Request) / 1e3 << ','
                << (B.End - Request) / 1e3 << '\n';
        Csv << SpinUs << ",flag," << (FlagSeen - Request) / 1e3 << ','
            << (FlagSeen - Request) / 1e3 << '\n';
        Csv << SpinUs << ",notice," << (Noticed - Request) / 1e3 << ','
            << (Noticed - Request) / 1e3 << '\n';
      }
    }
    auto Three = [](const std::vector<double> &V) {
      char Buf[64];
      std::snprintf(Buf, sizeof Buf, "%7.1f %7.1f %7.1f", percentile(V, 0.5),
                    percentile(V, 0.99), percentile(V, 1.0));
      return std::string(Buf);
    };
    bool Met = percentile(LastOut, 0.99) <= OrigUs + 20;
    std::printf("%-5u %7u %8.1f %8.1f %7.2f %7.2f | %s | %s %s | %s | %s | "
                "%8.1f %8.1f | %u (%u), %.1f %.1f\n",
                SpinUs, Workers, OrigUs, PtbUs, GapP50, GapP99,
                Three(Total).c_str(), Three(LastOut).c_str(),
                Met ? "met" : "MISSED", Three(Signal).c_str(),
                Three(Drain).c_str(), percentile(Notice, 0.5),
                percentile(Notice, 0.99), LateTotal, LatePauses,
                percentile(LateClaims, 0.5), percentile(LateClaims, 0.99));
  }
  D.cuMemFree(Seen);
  D.cuStreamDestroy(Side);
  return 0;
}
