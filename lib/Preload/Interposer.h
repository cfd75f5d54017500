//===- Interposer.h - What becomes of an intercepted launch -----*- C++ -*-===//
//
// The driver-level hooks (DriverHooks.cpp) hand every launch to the
// process's Interposer, whose behaviour BATON_SCHEDULE chooses:
//
//  * unset or off: none (the hooks call the driver and nothing else);
//  * best-effort: a launch of a kernel whose side module has variants goes
//    to the process's LaunchRouter as best-effort work on its stream, so it
//    runs as PTB workers (or slices) that pause and resume. Anything else
//    runs unchanged, each kind and kernel reported once with BATON_VERBOSE:
//    kernels without variants (refused, SASS only, or in no side module),
//    arguments passed through `extra`, launch attributes that change what
//    a launch means, cooperative launches, CUDA graphs, launches captured
//    into a graph, launches in a context other than the scheduler's (device
//    0's primary context);
//  * latency-critical: every launch runs unchanged, announced to the
//    processes sharing the GPU (baton/share.h) before it is issued and
//    ended on its stream, so that their best-effort work yields to it. A
//    launch captured into a graph is not announced: the graph's launches
//    are.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_PRELOAD_INTERPOSER_H
#define BATON_LIB_PRELOAD_INTERPOSER_H

#include "Catalogue.h"

#include "baton/Runtime.h"
#include "baton/Scheduler.h"
#include "baton/SchedulerService.h"
#include "baton/share.h"

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace baton::preload {

/// A launch as it reached a launch entry point of the driver.
struct DriverLaunch {
  CUfunction Function = nullptr;
  Dim3 Grid;
  Dim3 Block;
  unsigned SharedMemBytes = 0;
  CUstream Stream = nullptr;
  /// Reached through a _ptsz entry point, where a null stream is the calling
  /// thread's default stream rather than the legacy one.
  bool PerThreadStream = false;
  void **Params = nullptr;
  void **Extra = nullptr;

  /// The stream the launch runs on, named explicitly.
  CUstream stream() const;
};

/// Why a launch ran unchanged in a best-effort process.
enum class Unchanged {
  NoVariants,
  ExtraArguments,
  LaunchAttributes,
  Cooperative,
  Graph,
  OtherContext,
  NotSubmitted,
  Captured,
};
inline constexpr unsigned UnchangedKinds = 8;

class Interposer {
public:
  /// The process's interposer; null when BATON_SCHEDULE asks for no
  /// scheduling, so that the hooks cost one load and a branch.
  static Interposer *active() {
    return Instance.load(std::memory_order_acquire);
  }
  /// Creates it if BATON_SCHEDULE asks for scheduling (from the library's
  /// constructor, before the program runs).
  static void startFromEnvironment();

  /// Best-effort processes: submits the launch to the scheduler and
  /// returns the launch's result; nullopt if it must run unchanged (the
  /// reason is counted and reported).
  std::optional<CUresult> schedule(const DriverLaunch &L);
  /// Counts (and reports, once per kernel and reason) a launch that runs
  /// unchanged; \p Function may be null (graphs).
  void unchanged(CUfunction Function, Unchanged Why);
  /// Best-effort processes whose scheduler has started: best-effort work
  /// drained and held back for a module load that the program or one of
  /// its libraries makes (cuDNN loads engines at their first use), since a
  /// load made while a scheduled launch waits paused never returns
  /// (LaunchRouter::holdForModuleLoad). Nullopt otherwise: nothing of this
  /// process can be waiting paused.
  std::optional<sched::SchedulerService::BestEffortHold> holdForModuleLoad();

  /// Latency-critical processes: announces work about to be issued on
  /// \p Stream; the ticket (0 in best-effort processes, and for a stream
  /// that is capturing a graph) goes to issued().
  uint64_t announce(CUstream Stream);
  /// The unchanged launch of \p Ticket was issued on \p Stream with result
  /// \p Result: its end is tied to the stream's progress.
  void issued(uint64_t Ticket, CUstream Stream, CUresult Result);

private:
  explicit Interposer(sched::PriorityClass Class);
  struct KernelState {
    std::string Name;
    bool Resolved = false;       ///< looked up in the side modules
    std::optional<Kernel> Baton; ///< set if launches can be scheduled
    std::string WhyNot;          ///< else why not, for the report
  };
  KernelState &stateOf(CUfunction Function);
  /// Fills \p K from the side module, or says why it stays unchanged.
  void resolve(CUfunction Function, KernelState &K);
  /// The side module's image at \p Path, loaded on first use.
  Module &image(const std::filesystem::path &Path);
  /// Counts a launch that runs unchanged; reports it once per kernel and
  /// reason (with Mutex held).
  void count(KernelState *K, Unchanged Why);
  /// The registry membership of a latency-critical process, joined on
  /// first use unless BATON_SHARE=0; null (reported once) if it cannot be
  /// joined.
  baton_share share();
  void printSummary() const;

  static std::atomic<Interposer *> Instance;

  sched::PriorityClass Class;
  std::mutex Mutex; ///< guards everything below
  std::optional<Catalogue> SideModules; ///< best-effort only
  std::unordered_map<CUfunction, KernelState> Kernels;
  std::map<std::filesystem::path, Module> Images;
  /// Per kernel name ("" for graphs), a bit per Unchanged reason reported:
  /// a kernel may reach the driver under several handles (CUfunction and
  /// CUkernel).
  std::unordered_map<std::string, unsigned> Reported;
  std::once_flag ShareJoined;
  baton_share Share = nullptr; ///< latency-critical only

  std::atomic<uint64_t> Scheduled{0};
  std::atomic<uint64_t> Announced{0};
  std::atomic<uint64_t> LoadsHeld{0}; ///< module loads holdForModuleLoad held
  std::atomic<uint64_t> CapturedUnannounced{0}; ///< latency-critical only
  std::atomic<uint64_t> UnchangedCount[UnchangedKinds] = {};
};

} // namespace baton::preload

#endif // BATON_LIB_PRELOAD_INTERPOSER_H
