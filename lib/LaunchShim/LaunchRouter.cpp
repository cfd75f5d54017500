//===- LaunchRouter.cpp - One scheduler for a process's launches ----------===//
//
// The router is created on first use and never destroyed: at exit it must
// still wait for scheduled work before the CUDA runtime unregisters the
// fatbins, which an atexit handler registered after the runtime's does.
//
//===----------------------------------------------------------------------===//
#include "LaunchRouter.h"

#include "Lease.h"

#include "baton/Capture.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

using namespace baton;
using namespace baton::sched;

namespace {

/// BATON_SCHEDULE, or null where it is unset or asks for no scheduling.
const char *scheduleRequested() {
  const char *V = std::getenv("BATON_SCHEDULE");
  if (!V || !*V || std::strcmp(V, "off") == 0 || std::strcmp(V, "0") == 0)
    return nullptr;
  return V;
}

/// The number environment variable \p Name holds, if it is set and not
/// empty (tuning variables).
std::optional<unsigned long> envNumber(const char *Name) {
  const char *V = std::getenv(Name);
  if (!V || !*V)
    return std::nullopt;
  return std::strtoul(V, nullptr, 10);
}

/// How long BE work stays paused after peers' LC work ends: a request of an
/// inference process is a burst of kernels with host gaps of tens of
/// microseconds between them, each gap a pause and a resume of every BE
/// launch without it. BATON_SHARE_LINGER_US overrides.
unsigned lingerMicros() {
  return static_cast<unsigned>(envNumber("BATON_SHARE_LINGER_US").value_or(500));
}

} // namespace

bool baton::envFlag(const char *Name) {
  const char *V = std::getenv(Name);
  return V && *V && std::strcmp(V, "0") != 0;
}

bool baton::verboseRouting() {
  static const bool On = envFlag("BATON_VERBOSE");
  return On;
}

std::optional<PriorityClass> baton::scheduleFromEnvironment() {
  const char *V = scheduleRequested();
  if (!V)
    return std::nullopt;
  std::string Value = V;
  if (Value == "latency-critical")
    return PriorityClass::LatencyCritical;
  if (Value != "best-effort" && Value != "on" && Value != "1")
    std::fprintf(stderr,
                 "baton: BATON_SCHEDULE='%s' is not one of best-effort, "
                 "latency-critical, off; scheduling as best-effort\n",
                 Value.c_str());
  return PriorityClass::BestEffort;
}

void baton::prepareDriverForScheduling() {
  if (!scheduleRequested())
    return;
  // A waiting stream holds up every stream that shares its hardware queue,
  // and the driver spreads streams over CUDA_DEVICE_MAX_CONNECTIONS queues
  // (8 by default, 32 at most); lazy module loading may wait for an idle
  // device, which a waiting stream prevents (Runtime::kernelOf also loads
  // each module whole).
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
  setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);
}

LaunchRouter::LaunchRouter()
    : R([] {
        RuntimeOptions O;
        // BATON_DEPENDENT_FINALIZE=0: RuntimeOptions::DependentFinalize off.
        if (auto N = envNumber("BATON_DEPENDENT_FINALIZE"))
          O.DependentFinalize = *N != 0;
        // BATON_FIRST_SHARES=0: RuntimeOptions::FirstShares off.
        if (auto N = envNumber("BATON_FIRST_SHARES"))
          O.FirstShares = *N != 0;
        // BATON_TIME_RUNS_ON_DEVICE=0: RuntimeOptions::TimeRunsOnDevice off.
        if (auto N = envNumber("BATON_TIME_RUNS_ON_DEVICE"))
          O.TimeRunsOnDevice = *N != 0;
        return O;
      }()),
      Service(R, [] {
        SchedulerOptions O;
        O.ForgetDoneWork = true; // a training job launches without end
        // While no LC work is about, more launches queue on the device, so
        // that a training job alone waits on the host less often.
        O.LaunchesAheadWhenQuiet = 4;
        // A job left alone for a second runs the launches whose blocks are
        // no longer than a PTB claim's work as the originals: on the H100
        // the large GPT step alone went from 0.964-0.966 of unrouted to
        // 0.973-0.976, and a bert request 1.2 s after the last took 1.0-1.3
        // ms on the device at p90 instead of 0.5-0.6 (docs/benchmarks.md,
        // thirty-seventh session).
        O.OriginalsWhenIdleWithBlocksUpTo = std::chrono::microseconds(20);
        // BATON_LAUNCHES_AHEAD and BATON_LAUNCHES_AHEAD_QUIET: the two
        // SchedulerOptions windows; BATON_CLAIM_INTERVAL_US: work per PTB
        // claim (0: one block a claim); BATON_RESERVE_WHILE_LC=1:
        // ReserveWhileLcAbout; BATON_PREEMPTION_BOUND_US: the bound;
        // BATON_ONE_WAVE_ORIGINALS=0: OriginalForOneWaveWhenQuiet off;
        // BATON_QUIET_ORIGINALS_UP_TO_US: OriginalsWhenQuietUpTo;
        // BATON_IDLE_ORIGINAL_BLOCKS_US: OriginalsWhenIdleWithBlocksUpTo
        // (0: off); BATON_COVERING_SHARES=0: CoveringFirstShares off;
        // BATON_QUIET_TIMING_INTERVAL: QuietTimingInterval;
        // BATON_PROMPT_FROM_PAUSES=0: PromptFromPauses off. For tuning.
        if (auto N = envNumber("BATON_LAUNCHES_AHEAD"))
          O.LaunchesAhead = static_cast<uint32_t>(*N);
        if (auto N = envNumber("BATON_LAUNCHES_AHEAD_QUIET"))
          O.LaunchesAheadWhenQuiet = static_cast<uint32_t>(*N);
        if (auto N = envNumber("BATON_CLAIM_INTERVAL_US"))
          O.ClaimInterval = std::chrono::microseconds(*N);
        if (auto N = envNumber("BATON_RESERVE_WHILE_LC"))
          O.ReserveWhileLcAbout = *N != 0;
        if (auto N = envNumber("BATON_PREEMPTION_BOUND_US"))
          O.PreemptionBound = std::chrono::microseconds(*N);
        if (auto N = envNumber("BATON_ONE_WAVE_ORIGINALS"))
          O.OriginalForOneWaveWhenQuiet = *N != 0;
        if (auto N = envNumber("BATON_QUIET_ORIGINALS_UP_TO_US"))
          O.OriginalsWhenQuietUpTo = std::chrono::microseconds(*N);
        if (auto N = envNumber("BATON_IDLE_ORIGINAL_BLOCKS_US"))
          O.OriginalsWhenIdleWithBlocksUpTo = std::chrono::microseconds(*N);
        if (auto N = envNumber("BATON_COVERING_SHARES"))
          O.CoveringFirstShares = *N != 0;
        if (auto N = envNumber("BATON_QUIET_TIMING_INTERVAL"))
          O.QuietTimingInterval = static_cast<uint32_t>(*N);
        if (auto N = envNumber("BATON_PROMPT_FROM_PAUSES"))
          O.PromptFromPauses = *N != 0;
        return O;
      }()),
      Lease(share::leaseFromEnvironment()) {
  // BATON_LC_LINGER_US: SchedulerService::lingerAfterBrackets, for the
  // brackets of baton_lc_begin/baton_lc_end. For tuning.
  if (auto N = envNumber("BATON_LC_LINGER_US"))
    Service.lingerAfterBrackets(std::chrono::microseconds(*N));
  // Brackets get the lease that the GPU's registry gives LC work (share.h,
  // BATON_SHARE_LEASE_MS, 1 s): LC work waiting for the whole device inside
  // a bracket would otherwise wait for the BE work the bracket keeps
  // paused, for good.
  Service.leaseBrackets(Lease);
}

std::atomic<LaunchRouter *> LaunchRouter::Started{nullptr};

LaunchRouter *LaunchRouter::get() {
  static LaunchRouter *Instance = []() -> LaunchRouter * {
    try {
      auto *Created = new LaunchRouter();
      std::atexit([] {
        if (LaunchRouter::get()->synchronize() != 0)
          std::fprintf(stderr, "baton: scheduled work failed before exit\n");
      });
      Started.store(Created, std::memory_order_release);
      return Created;
    } catch (const std::exception &E) {
      std::fprintf(stderr, "baton: launches are not scheduled: %s\n",
                   E.what());
      return nullptr;
    }
  }();
  return Instance;
}

uint32_t LaunchRouter::queueOf(CUstream Stream) {
  std::lock_guard Lock(Mutex);
  auto [It, New] = Queues.try_emplace(Stream, uint32_t(Queues.size() + 1));
  return It->second;
}

LaunchRouter::Submitted LaunchRouter::submit(const Kernel &K,
                                             const RoutedLaunch &Launch,
                                             PriorityClass Class) {
  LaunchConfig Config;
  Config.Grid = Launch.Grid;
  Config.Block = Launch.Block;
  Config.SharedMemBytes = Launch.SharedMemBytes;
  // A null stream in RuntimeWork means "any stream", so the default stream
  // is named explicitly: CUDA's 0 is the legacy default stream.
  Config.Stream = Launch.Stream ? Launch.Stream : CU_STREAM_LEGACY;
  try {
    if (streamCapturing(Config.Stream))
      return Submitted::Capturing;
  } catch (const std::exception &Err) {
    std::fprintf(stderr, "baton: launch of '%s' failed: %s\n",
                 K.name().c_str(), Err.what());
    return Submitted::Failed;
  }
  // Another thread's global-mode capture must not fail the driver calls
  // that follow (they never touch a capturing stream).
  RelaxedCaptureMode Relaxed;
  bool Lc = Class == PriorityClass::LatencyCritical;
  baton_share Share = shareFor(Class);
  // BE work that yields to other processes must not hold the GPU past a
  // pause under the driver's time slicing (LaunchConfig).
  Config.FirstRunOnPrivateStream = Share && !Lc;
  Config.DependentFinalize = !Config.FirstRunOnPrivateStream;
  uint64_t Ticket = 0; // peers' BE work yields from before the launch
  if (Share && Lc && baton_share_announce(Share, &Ticket) != BATON_SHARE_OK)
    Ticket = 0;
  try {
    Work W = makeWork(RuntimeWork::capture(K, Config, Launch.Args), Class,
                      Lc ? 0 : queueOf(Config.Stream));
    W.IssueAtOnce = true;
    Service.submit(std::move(W));
  } catch (const std::exception &Err) {
    std::fprintf(stderr, "baton: launch of '%s' failed: %s\n",
                 K.name().c_str(), Err.what());
    if (Ticket)
      baton_share_end(Share, Ticket);
    return Submitted::Failed;
  }
  // An LC launch runs on Config.Stream: its end is the stream reaching
  // this point.
  if (Ticket &&
      baton_share_end_on_stream(Share, Ticket, Config.Stream) != BATON_SHARE_OK)
    baton_share_end(Share, Ticket);
  if (Share && !Lc)
    baton_share_count_launches(Share, 1);
  return Submitted::Scheduled;
}

baton_share LaunchRouter::shareFor(PriorityClass Class) {
  bool Lc = Class == PriorityClass::LatencyCritical;
  std::call_once(Joined[Lc], [&] {
    if (const char *V = std::getenv("BATON_SHARE"); V && !std::strcmp(V, "0"))
      return;
    baton_share S = nullptr;
    if (baton_share_join(nullptr, R.options().Device,
                         Lc ? BATON_SHARE_LATENCY_CRITICAL
                            : BATON_SHARE_BEST_EFFORT,
                         nullptr, &S) != BATON_SHARE_OK) {
      std::fprintf(stderr,
                   "baton: not sharing the GPU with other processes: %s\n",
                   baton_share_last_error());
      // A registry we could not join (full, say) may hold LC peers.
      if (!Lc)
        Service.peersPresentWhile([] { return true; });
      return;
    }
    // The membership lasts as long as the process, like the router.
    if (!Lc) {
      baton_share_set_linger(S, lingerMicros());
      Service.yieldWhile([S] { return baton_share_should_yield(S) == 1; });
      Service.peersPresentWhile([S] {
        uint32_t Peers = 0;
        return baton_share_lc_peers(S, &Peers) != BATON_SHARE_OK || Peers;
      });
    }
    Shares[Lc] = S;
  });
  return Shares[Lc];
}

bool LaunchRouter::peersLatencyCritical() {
  baton_share S = shareFor(sched::PriorityClass::BestEffort);
  return S && baton_share_should_yield(S) == 1;
}

int LaunchRouter::synchronize() {
  try {
    // waitIdle() may issue resumes and grow the task pool on this thread.
    RelaxedCaptureMode Relaxed;
    Service.waitIdle();
    return 0;
  } catch (const std::exception &E) {
    std::fprintf(stderr, "baton: %s\n", E.what());
    return -1;
  }
}
