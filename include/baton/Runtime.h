//===- baton/Runtime.h - Host runtime: load, launch, pause, resume -*- C++ -*-//
//
// The host side of Baton. A Runtime owns one device's primary context, a
// control stream of the highest priority, and a small module of its own. It
// loads modules that `baton-ptx` (or the LLVM plugin) produced, finds each
// kernel's `__baton_slice` / `__baton_ptb` variants by name, and launches a
// kernel in one of three modes:
//
//  * Original: the untouched kernel, a plain cuLaunchKernel on the stream.
//  * Slices:   the slice variant, `sliceBlocks` virtual blocks per launch,
//              launched back to back by the runtime; a pause stops it between
//              two slices.
//  * Ptb:      the persistent variant with `workers` blocks taking virtual
//              blocks from a cursor; a pause stops every worker before its
//              next block, and resuming relaunches from the cursor.
//
// Stream semantics. A launch issued on stream S behaves, for S, like one
// kernel: work issued on S before it runs first, and work issued on S after
// it starts only once every virtual block of the launch has run, however
// often it is paused and resumed in between. (A PTB launch's first run goes
// on S itself, unless LaunchConfig::FirstRunOnPrivateStream; S then waits on
// a word that the device sets when the last block is done, so an
// uninterrupted launch costs no host round trip, and runs after a pause go
// on a private stream.)
//
// Hardware queues. A stream holding a paused launch waits on the device.
// The driver spreads streams over CUDA_DEVICE_MAX_CONNECTIONS hardware
// queues (8 by default), and once about as many streams wait as there are
// queues, no stream's work starts, resumes and pause requests included
// (docs/scheduling.md, "Deadlocks avoided"). Creating a Runtime therefore
// sets CUDA_DEVICE_MAX_CONNECTIONS=32 unless the environment sets it; this
// takes effect only if CUDA was not initialised in the process before. With
// 32 queues, 24 streams waiting at once held no other stream up on the H200.
// Creating a stream can also wait for a waiting stream; the runtime makes
// its own only while nothing of it is in flight (RuntimeOptions::
// PrivateStreams), and a program's own stream creation may wait until its
// paused launches are resumed.
//
// Errors. Every failure is a baton::Error; a failing CUDA call is reported
// with the call's name, the driver's error string and the kernel. Without a
// CUDA driver (no libcuda.so.1) every entry point throws
// ErrorKind::DriverUnavailable ("CUDA driver not available: ...").
//
// Threads. Runtime, Module and Launch may be used from any thread; each
// launch has its own lock, and pause() never waits for a thread that is
// blocked in wait() on the same launch.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_RUNTIME_H
#define BATON_RUNTIME_H

#include "baton/task.h"

#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace baton {

namespace sched {
class RuntimeExecutor;
} // namespace sched
namespace detail {
struct RuntimeImpl;
struct ModuleImpl;
struct KernelImpl;
struct LaunchImpl;
} // namespace detail

enum class ErrorKind {
  DriverUnavailable, ///< libcuda.so.1 missing or too old
  Cuda,              ///< a driver call failed; see cudaResult()
  InvalidArgument,   ///< a bad grid, block, argument count, ...
  NotFound,          ///< no such kernel or variant in the module
  InvalidState,      ///< e.g. resume() of a launch that is not paused
};

/// The single exception type of the runtime.
class Error : public std::runtime_error {
public:
  Error(ErrorKind Kind, const std::string &Message,
        CUresult Result = CUDA_SUCCESS);
  ErrorKind kind() const { return Kind; }
  /// The driver's result for ErrorKind::Cuda, else CUDA_SUCCESS.
  CUresult cudaResult() const { return Result; }

private:
  ErrorKind Kind;
  CUresult Result;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

enum class Mode { Original, Slices, Ptb };

/// How pause() raises a launch's `preempt` flag. Both are issued on the
/// control stream, so neither waits behind the kernel they interrupt.
enum class PreemptSignal {
  StreamWrite, ///< cuStreamWriteValue32 (a front-end memory operation)
  Memcpy,      ///< cuMemcpyHtoDAsync from a pinned word (a copy engine)
};

struct RuntimeOptions {
  int Device = 0;
  PreemptSignal Signal = PreemptSignal::StreamWrite;
  /// Slices of a slice launch issued and not yet finished, the running one
  /// included; a pause waits for at most this many. Slices much shorter
  /// than the host's reaction to a finished slice leave the GPU idle
  /// between them.
  uint32_t SliceWindow = 2;
  /// Private streams kept ready per stream priority. A launch holds one from
  /// its first run off its user's stream until it completes (a slice
  /// launch two, until it is destroyed); a launch started paused takes it
  /// when resumed. Streams are created only while no launch is in flight
  /// (creating one can wait for a paused launch), so a launch that finds
  /// none free fails with an error saying so.
  uint32_t PrivateStreams = 64;
  /// On GPUs of compute capability 9.0 and up, the kernel that ends each
  /// PTB run (reads its cursor, releases the user's stream) is a
  /// programmatic dependent launch of the run: the driver starts it while
  /// the run's last workers leave, and it waits for the run to complete
  /// before it reads anything. About 1.3 us less device time per run.
  /// LaunchConfig::DependentFinalize turns it off for one launch.
  bool DependentFinalize = true;
  /// PTB launches hand their workers' first claims out in the task
  /// (LaunchConfig::FirstShares, which turns it off for one launch).
  bool FirstShares = true;
  /// Time each run of a PTB or original launch on the device, with an event
  /// with timing before its kernel and one after its end (Launch::
  /// lastRunTime). The scheduler's executor then takes that as the run's
  /// duration, for its block estimates, instead of the host's time from
  /// issuing the run to seeing it done, which holds the wait behind the
  /// launches queued ahead of it and the host's reaction: tens to hundreds
  /// of microseconds on a kernel of ten, and so estimates of its blocks
  /// far too long (the scheduler then runs short blocks as PTB where
  /// SchedulerOptions::OriginalsWhenIdleWithBlocksUpTo would run the
  /// original, and claims them one at a time).
  bool TimeRunsOnDevice = true;
};

struct LaunchConfig {
  Dim3 Grid;                   ///< the original grid, in blocks
  Dim3 Block;                  ///< threads per block (unchanged by variants)
  uint32_t SharedMemBytes = 0; ///< dynamic shared memory per block
  CUstream Stream = nullptr;   ///< the user's stream S (see file comment)
  Mode LaunchMode = Mode::Ptb;
  /// Slices: virtual blocks per slice launch; 0 = one full wave of the device.
  uint32_t SliceBlocks = 0;
  /// Ptb: workers; 0 = as many as can be co-resident (occupancy x SMs).
  uint32_t Workers = 0;
  /// Ptb: workers claim their next block when they start one
  /// (BATON_TASK_PREFETCH): hides the claim's latency behind short blocks,
  /// but a pause may then wait for up to two blocks per worker.
  bool Prefetch = false;
  /// Ptb: virtual blocks a worker claims at once (task.h, claim_chunk).
  /// Fewer atomics on the launch's one cursor, for kernels of many short
  /// blocks; a pause may then wait for up to this many blocks per worker.
  /// 0 and 1 mean one; the runtime caps it (BATON_MAX_CLAIM_CHUNK, and so
  /// that the cursor cannot wrap).
  uint32_t ClaimChunk = 1;
  /// Ptb: the first run hands each worker its first claim in the task
  /// (task.h, first shares) instead of each making it: where those cover
  /// the grid, workers touch neither the cursor nor `preempt`. A worker
  /// runs its share before it looks at `preempt`, as any claim; off for a
  /// launch with SMs vacated, and for one of more Workers than fit on the
  /// device at once (a worker waiting for an SM would run its share after a
  /// pause). A launch that starts paused gets the shares of the width it is
  /// issued with; if its first run has another width, or SMs were vacated
  /// meanwhile, resume() takes them back out of the task.
  bool FirstShares = true;
  /// Ptb, with FirstShares: where shares of at most this many blocks cover
  /// the whole grid, the first run hands them out even beyond ClaimChunk,
  /// and no worker claims at all (baton_first_share_limit). A worker runs
  /// its share before it looks at `preempt`, so a pause of that run may
  /// wait for this many blocks a worker: the scheduler sets it from its
  /// preemption bound (SchedulerOptions::CoveringFirstShares). At most
  /// BATON_MAX_CLAIM_CHUNK counts; 0: shares hold at most ClaimChunk.
  uint32_t CoveringShareLimit = 0;
  /// Ptb: workers on SMs 0..VacatedSms-1 (by %smid) leave before their first
  /// claim, so the launch runs on the other SMs and leaves these whole to
  /// other work (task.h, the `preempt` watermark). Launch more workers than
  /// the SMs kept need: the hardware spreads them over every SM. A launch
  /// whose every worker landed on a vacated SM stops with work left, Paused.
  uint32_t VacatedSms = 0;
  /// Slices and Ptb: issue the launch in the order of its stream, but run
  /// none of its blocks until resume(). The launch starts Paused at virtual
  /// block 0; work issued on Stream after it still waits for its completion.
  /// This is how a scheduler keeps a client's stream order for launches it
  /// is not ready to run yet.
  bool StartPaused = false;
  /// Ptb, not StartPaused: run the first kernel on a private stream that
  /// waits for S, as runs after a pause do, instead of on S itself. On S it
  /// needs no wait across streams, so a chain of launches runs faster. But a
  /// process whose PTB launches have run on their user streams does not give
  /// the GPU back at once when it pauses for another process under the
  /// driver's time slicing: the other context waits out the time slice (on
  /// the H200, an LC peer's p99 1.85 ms against 0.3 ms with private first
  /// runs; docs/sharing.md). Set for all BE launches of a process that may
  /// yield to other processes, from its first launch on; the launch router
  /// does once it has joined a registry (baton/share.h).
  bool FirstRunOnPrivateStream = false;
  /// Ptb: end each run with the dependent finalize kernel where the runtime
  /// has one (RuntimeOptions::DependentFinalize). Like a first run on the
  /// user's stream, the dependent launch keeps a time-sliced GPU on this
  /// process's context past its pauses (on the H100, an LC peer's p99
  /// 1.93 ms against 0.33 ms with the plain finalize; docs/sharing.md), so
  /// BE launches of a process that may yield to other processes clear it;
  /// the launch router does once it has joined a registry.
  bool DependentFinalize = true;
  /// PTB and Original: time this launch's runs on the device where the
  /// runtime times runs (RuntimeOptions::TimeRunsOnDevice). The two events
  /// with timing cost each run a few microseconds of device time, which a
  /// chain of short kernels feels (the colocation MLP's step alone: 1-2%;
  /// docs/benchmarks.md, fifty-eighth session), so a scheduler whose
  /// estimates are settled times only some launches. False: lastRunTime()
  /// is nullopt.
  bool TimeRuns = true;
};

enum class LaunchState {
  Running, ///< issued; blocks may still be running or queued
  Paused,  ///< stopped at a checkpoint; resume() continues it
  Done,    ///< every virtual block ran (as far as the runtime has observed)
  Failed,  ///< a CUDA call failed; wait()/pause() rethrow the error
};

struct Progress {
  /// Virtual blocks taken so far. While Running this counts blocks started
  /// (they may still be running), but for a PTB launch's first shares
  /// (LaunchConfig::FirstShares), which count once the first run has
  /// ended; once Paused or Done, blocks completed.
  uint32_t Done = 0;
  uint32_t Total = 0;
};

/// What one block of a kernel occupies beyond its threads, as the driver
/// reports it for the original kernel.
struct KernelResources {
  uint32_t RegistersPerThread = 0;
  uint32_t StaticSharedBytes = 0;
};

/// A kernel of a module and the variants found for it.
class Kernel {
public:
  const std::string &name() const;
  bool hasVariant(Mode M) const;
  /// Whether the PTB variant takes first shares (task ABI 5: it comes with
  /// its ABI marker, task.h); PTB launches of one that does not make every
  /// first claim on the device, as LaunchConfig::FirstShares off.
  bool ptbTakesFirstShares() const;
  /// Parameters of the original kernel (the variants take one more).
  size_t numParams() const;
  /// Their sizes in bytes, in order, as the driver reports them.
  std::span<const size_t> paramSizes() const;
  /// The function launched for \p M; throws NotFound if there is no variant.
  CUfunction function(Mode M) const;
  /// Asked of the driver on the first call only (per kernel, not per
  /// handle): the scheduler reads it for every launch.
  KernelResources resources() const;

private:
  friend class Module;
  friend class Runtime;
  explicit Kernel(std::shared_ptr<const detail::KernelImpl> Impl);
  std::shared_ptr<const detail::KernelImpl> Impl;
};

struct KernelInfo {
  std::string Name;
  bool HasSlice = false;
  bool HasPtb = false;
};

/// A loaded module (PTX text, cubin or fatbin). Unloaded when the last
/// Module, Kernel or Launch that refers to it is gone.
class Module {
public:
  /// Throws NotFound if the module has no kernel \p Name.
  Kernel kernel(std::string_view Name) const;
  /// Every original kernel, with the variants it has. Kernels without
  /// variants are the ones the compiler refused.
  std::vector<KernelInfo> kernels() const;
  CUmodule handle() const;

private:
  friend class Runtime;
  explicit Module(std::shared_ptr<detail::ModuleImpl> Impl);
  std::shared_ptr<detail::ModuleImpl> Impl;
};

/// One launch of a kernel. Destroying a launch that is still paused resumes
/// it and waits for it: the stream it was issued on must see it complete.
class Launch {
public:
  Launch(Launch &&) noexcept;
  Launch &operator=(Launch &&) noexcept;
  ~Launch();

  /// Asks the launch to stop and returns once none of its blocks is running
  /// (for Ptb: the last worker has left; for Slices: the slices in flight
  /// finished). Returns true if it stopped with work left (Paused), false if
  /// it completed first (Done). Throws InvalidState for Original launches.
  bool pause();
  /// Asks the launch to stop, like pause(), and returns at once; wait()
  /// then returns Paused (or Done, if it completed first) once it stopped.
  void requestPause();
  /// Ptb: from now on, workers on SMs 0..Sms-1 (by %smid) leave before
  /// their next claim while the others go on: the launch keeps running on
  /// the other SMs, without a pause. It holds for later runs (resumes) until
  /// changed. A worker that left does not come back before the launch is
  /// resumed, so a lower value gives SMs back only then. If every worker
  /// leaves with work left, the launch stops Paused, as if paused. Needs
  /// variants of task ABI 3: older ones stop every worker for any nonzero
  /// value, so such a launch stops each time it runs with SMs vacated.
  /// InvalidState for Original and Slices.
  void vacate(uint32_t Sms);
  /// SMs the launch's workers leave now (vacate, LaunchConfig::VacatedSms).
  uint32_t vacatedSms() const;
  /// Relaunches a paused launch from its checkpoint, with \p Width workers
  /// (Ptb) or blocks per slice (Slices), or with its current width when 0:
  /// the cursor makes a change of width exact, which is how a scheduler
  /// shrinks or grows best-effort work. InvalidState if not paused.
  void resume(uint32_t Width = 0);
  /// Runs the original kernel instead, in the launch's place in its
  /// stream's order, for a PTB launch that started paused and has run
  /// nothing: a scheduler's choice for work it no longer needs to stop
  /// (Scheduler.h, OriginalForOneWaveWhenQuiet). The launch is then an
  /// Original one: Running until its kernel completes, then Done; it can no
  /// longer be paused. InvalidState otherwise.
  void resumeAsOriginal();
  /// Gives up a paused launch: its remaining virtual blocks never run, and
  /// its stream goes on as if it had completed (the work queued after it
  /// runs). The launch is Failed afterwards; wait() throws InvalidState.
  /// For tearing work down: a device reset waits for every stream, and a
  /// stream holding a paused launch never drains. InvalidState unless
  /// Paused.
  void cancel();
  /// Blocks until the launch is Done or Paused, and returns which.
  LaunchState wait();
  /// wait() without blocking: the launch's state, settled first if it has
  /// stopped on the device since it was last observed.
  LaunchState poll();
  LaunchState state() const;
  Progress progress() const;
  Mode mode() const;
  /// Workers per PTB launch, or blocks per slice launch; the grid size for
  /// Original.
  uint32_t width() const;
  /// Preemption statistics accumulated by the device (Ptb only; valid once
  /// Paused or Done): workers that left, and of those the ones preempted.
  uint32_t workersExited() const;
  uint32_t workersPreempted() const;
  /// Workers of the last run (launch or resume) that stopped at the
  /// `preempt` word, for a pause or a vacated SM (Ptb; valid once that run
  /// is Paused or Done). A run that nobody asked to stop had none, so this
  /// reads nothing from the device and never fails.
  uint32_t workersLeftLastRun() const;
  /// Device time of the last run (launch or resume) of a PTB or original
  /// launch, from just before its kernel began to its end (for PTB, its
  /// finalize kernel's), where the runtime times runs
  /// (RuntimeOptions::TimeRunsOnDevice, LaunchConfig::TimeRuns) and that
  /// run is Paused or Done; nullopt otherwise, and for Slices.
  std::optional<std::chrono::nanoseconds> lastRunTime() const;

private:
  friend class Runtime;
  explicit Launch(std::shared_ptr<detail::LaunchImpl> Impl);
  std::shared_ptr<detail::LaunchImpl> Impl;
};

class Runtime {
public:
  explicit Runtime(const RuntimeOptions &Options = {});
  ~Runtime();
  Runtime(Runtime &&) noexcept;
  Runtime &operator=(Runtime &&) noexcept;

  /// Loads PTX text (JIT-compiled; a failure carries the JIT log).
  Module loadPtx(std::string_view Ptx);
  /// Loads a cubin, fatbin or NUL-terminated PTX image.
  Module loadImage(std::span<const std::byte> Image);
  /// Loads a file; `.ptx` files as PTX, anything else as an image.
  Module loadFile(const std::filesystem::path &Path);
  /// The kernel behind \p Function, a kernel of a module that someone else
  /// loaded (the CUDA runtime: cudaGetFuncBySymbol gives the CUfunction of a
  /// `<<<...>>>` launch), with the variants found beside it by name. Baton
  /// never unloads such a module; its owner must keep it loaded while
  /// launches of it run. Lookups of one module share one Module.
  Kernel kernelOf(CUfunction Function);

  /// Launches \p K. \p Args are the original kernel's arguments, one pointer
  /// per parameter as for cuLaunchKernel; their values are copied, so they
  /// need not outlive the call. The task pointer is appended by the runtime.
  /// Throws Error(InvalidState) if Config.Stream is capturing a CUDA graph:
  /// a launch's events, waits and private streams cannot go into a graph,
  /// whose replays the runtime would never see (baton/Capture.h).
  Launch launch(const Kernel &K, const LaunchConfig &Config,
                std::span<void *const> Args);

  /// The worker count (Ptb) or slice size (Slices) a launch of \p K with
  /// \p Config would use when it leaves the choice to the runtime.
  uint32_t defaultWidth(const Kernel &K, const LaunchConfig &Config) const;

  CUcontext context() const;
  CUdevice device() const;
  int multiprocessorCount() const;
  /// The hardware queues the driver gave the context
  /// (CUDA_DEVICE_MAX_CONNECTIONS): 32 when the Runtime set it, else the
  /// environment's value, or the driver's default 8 when the context existed
  /// before and the environment did not say.
  int hardwareQueues() const;
  const RuntimeOptions &options() const;

private:
  friend class sched::RuntimeExecutor; // its queues' streams: the pool's
  std::shared_ptr<detail::RuntimeImpl> Impl;
};

} // namespace baton

#endif // BATON_RUNTIME_H
