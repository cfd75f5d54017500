//===- LaunchRouter.h - One scheduler for a process's launches --*- C++ -*-===//
//
// What the two ways of routing unmodified launches to Baton share: the launch
// shim (libbaton_cuda, behind `<<<...>>>` of plugin-built code) and the
// launch interposer (libbaton_preload.so, behind the driver's launch entry
// points). Each finds the Baton kernel of a launch its own way; both hand
// it to the process's one LaunchRouter, which owns the Runtime and the
// SchedulerService, turns the launch into a Work on the caller's stream, and
// waits for scheduled work before the process exits.
//
// Also here: the environment both read (BATON_SCHEDULE, BATON_VERBOSE) and
// the driver settings both need before the program's first CUDA call.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LAUNCHSHIM_LAUNCHROUTER_H
#define BATON_LIB_LAUNCHSHIM_LAUNCHROUTER_H

#include "baton/SchedulerService.h"
#include "baton/share.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>

namespace baton {

/// The environment variable \p Name is set, not empty, and not "0".
bool envFlag(const char *Name);

/// BATON_VERBOSE is set to something other than 0.
bool verboseRouting();

/// The class BATON_SCHEDULE asks for: nullopt where it is unset, "off" or
/// "0"; LatencyCritical for "latency-critical"; BestEffort for
/// "best-effort", "on", "1", and (with a warning) anything else.
std::optional<sched::PriorityClass> scheduleFromEnvironment();

/// With BATON_SCHEDULE set, sets CUDA_DEVICE_MAX_CONNECTIONS=32 and
/// CUDA_MODULE_LOADING=EAGER unless the environment sets them (see
/// docs/scheduling.md, "Deadlocks avoided"). Call it from a constructor, so
/// that it precedes the program's first CUDA call.
void prepareDriverForScheduling();

/// A launch as the driver takes it: the original grid and arguments.
struct RoutedLaunch {
  Dim3 Grid;
  Dim3 Block;
  uint32_t SharedMemBytes = 0;
  /// The caller's stream; null is the legacy default stream.
  CUstream Stream = nullptr;
  void *const *Args = nullptr; ///< one pointer per parameter of the kernel
};

class LaunchRouter {
public:
  /// The process's router, created on first use; null (reported once) if
  /// the runtime cannot start, and then launches are not scheduled.
  static LaunchRouter *get();
  /// The process's router if get() has created it, else null; never
  /// creates it.
  static LaunchRouter *ifStarted() {
    return Started.load(std::memory_order_acquire);
  }

  /// What became of a launch handed to submit().
  enum class Submitted {
    Scheduled, ///< the scheduler has it
    /// Nothing was issued: the stream is capturing a CUDA graph, whose
    /// replays the scheduler cannot see. The caller issues the original
    /// kernel, which the graph captures (baton/Capture.h).
    Capturing,
    Failed, ///< nothing was issued; the reason is on stderr
  };

  /// Hands a launch of \p K to the scheduler as \p Class work on its
  /// stream (BE launches of one stream form one queue). An LC launch is
  /// announced to the other processes sharing the GPU before it is issued,
  /// and ends for them when its stream reaches it.
  Submitted submit(const Kernel &K, const RoutedLaunch &Launch,
                   sched::PriorityClass Class);
  /// Waits for every scheduled launch; -1 with a message if one failed.
  int synchronize();
  /// Whether best-effort work of this process should hold back now for
  /// latency-critical work announced in the GPU's registry (this process's
  /// own included, with the linger after it), as the scheduler's own BE
  /// work does: for launches the scheduler does not see, held on the host.
  /// Joins the registry as best-effort first; false where it is not joined
  /// (BATON_SHARE=0, or no registry).
  bool peersLatencyCritical();
  sched::SchedulerService &service() { return Service; }
  Runtime &runtime() { return R; }
  /// How long an LC bracket holds BE work back without being renewed
  /// (SchedulerService::leaseBrackets; BATON_SHARE_LEASE_MS, 1 s).
  std::chrono::milliseconds bracketLease() const { return Lease; }

  /// How long a module load of Baton's own waits for LC work to release
  /// paused best-effort work before the scheduler drains it
  /// (holdForModuleLoad). Loads are rare (a kernel's first launch), and
  /// BE submits wait meanwhile.
  static constexpr std::chrono::milliseconds ModuleLoadPatience{100};
  /// Before this process loads a module (variants built at a kernel's first
  /// launch, a side module, a cubin of baton.torch's): best-effort work
  /// drained and held back until the hold is destroyed
  /// (SchedulerService::holdBestEffort, with ModuleLoadPatience), since a
  /// load made while a launch waits paused never returns
  /// (docs/scheduling.md, "Deadlocks avoided").
  sched::SchedulerService::BestEffortHold holdForModuleLoad() {
    return Service.holdBestEffort(ModuleLoadPatience);
  }

private:
  LaunchRouter();
  uint32_t queueOf(CUstream Stream);
  /// This process's membership, for \p Class, of the GPU's registry of
  /// processes sharing it (baton/share.h; docs/sharing.md), joined at the
  /// first launch of that class unless BATON_SHARE=0. A best-effort member
  /// makes BE work yield while other processes' LC work is outstanding
  /// (SchedulerService::yieldWhile). Null if not joined.
  baton_share shareFor(sched::PriorityClass Class);

  Runtime R;
  sched::SchedulerService Service;
  const std::chrono::milliseconds Lease;
  static std::atomic<LaunchRouter *> Started;
  std::mutex Mutex; ///< guards Queues
  std::map<CUstream, uint32_t> Queues;
  std::once_flag Joined[2]; ///< indexed by "is latency-critical"
  baton_share Shares[2] = {nullptr, nullptr};
};

} // namespace baton

#endif // BATON_LIB_LAUNCHSHIM_LAUNCHROUTER_H
