//===- Impl.h - The objects behind Runtime, Module, Kernel, Launch -*- C++ -*-===//
//
// The public classes are handles onto these. Ownership runs one way, so that
// whatever a launch uses outlives it: a LaunchImpl holds its KernelImpl,
// which holds its ModuleImpl, which holds the RuntimeImpl (context, streams,
// task slots, the slice feeder).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_IMPL_H
#define BATON_LIB_RUNTIME_IMPL_H

#include "ArgPack.h"
#include "FunctionFacts.h"
#include "StreamPool.h"
#include "TaskPool.h"

#include "baton/Runtime.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace baton::detail {

class SliceFeeder;

/// Makes the runtime's context current for the scope, and restores the
/// caller's afterwards (Baton must not disturb the context of a host
/// program that uses CUDA itself).
class ScopedContext {
public:
  explicit ScopedContext(CUcontext Context);
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;
};

struct RuntimeImpl {
  explicit RuntimeImpl(const RuntimeOptions &Options);
  ~RuntimeImpl();
  RuntimeImpl(const RuntimeImpl &) = delete;
  RuntimeImpl &operator=(const RuntimeImpl &) = delete;

  /// False once the primary context was reset or destroyed under the
  /// runtime (cuDevicePrimaryCtxReset, cudaDeviceReset): every handle the
  /// runtime holds is stale then, and the next use of the context would
  /// silently make a new one. Cleanup skips the driver after that.
  bool contextAlive() const noexcept;
  /// Throws a clear Error naming \p Kernel unless contextAlive().
  void checkContext(std::string_view Kernel) const;
  /// An event from a pool, without timing unless \p Timed: every variant
  /// launch uses three (four where runs are timed), and creating and
  /// destroying them cost it two driver calls each.
  CUevent acquireEvent(bool Timed = false);
  /// Returns \p Event (acquired with \p Timed) to its pool. Its owner must
  /// be done with it: waits already queued on it keep the record they saw,
  /// but a query would see the next owner's.
  void releaseEvent(CUevent Event, bool Timed = false);
  /// The slice feeder, started on first use.
  SliceFeeder &feeder();

  /// Sets the task's `preempt` watermark on the control stream
  /// (writeTaskWord).
  void writePreempt(const TaskSlot &Slot, uint32_t Watermark);
  /// Sets the task's 32-bit word at \p Offset to \p Value on the control
  /// stream, by the method chosen in the options: a stream write, or a
  /// copy of a pinned word (for PreemptSignal::Memcpy, values other than 0
  /// and BATON_PREEMPT_ALL, which no pinned word holds, by a memset, which
  /// the driver may run as a kernel). \p What names the word in errors.
  void writeTaskWord(const TaskSlot &Slot, uint32_t Offset, uint32_t Value,
                     std::string_view What);
  /// Copies the task back into its mirror and waits for it.
  void readTask(const TaskSlot &Slot, std::string_view Kernel);
  /// Blocks of \p Fn that fit on the device at once, capped at
  /// \p VirtualBlocks.
  uint32_t coResident(CUfunction Fn, const Dim3 &Block,
                      uint32_t SharedMemBytes, uint64_t VirtualBlocks,
                      std::string_view Kernel) const;

  RuntimeOptions Options;
  CUdevice Device = 0;
  CUcontext Context = nullptr;
  int Multiprocessors = 0;
  /// CUDA_DEVICE_MAX_CONNECTIONS as the context got it (Runtime.h).
  int HardwareQueues = 8;
  CUstream Control = nullptr; ///< highest priority; tiny operations only
  CUmodule Own = nullptr;     ///< the runtime's kernels (RuntimeKernels.h)
  CUfunction Finalize = nullptr;
  /// Finalize is FinalizeDependentPtx's, issued as a programmatic dependent
  /// launch of the run before it (RuntimeOptions::DependentFinalize).
  bool FinalizeIsDependent = false;
  TaskPool Tasks;
  /// Private streams of launches (and of a RuntimeExecutor's queues).
  StreamPool Streams;

  /// Modules of other loaders that kernelOf() has wrapped, so each is
  /// wrapped once.
  std::mutex AdoptedMutex;
  std::map<CUmodule, std::weak_ptr<ModuleImpl>> Adopted;

private:
  void release() noexcept;

  std::mutex EventMutex;
  std::vector<CUevent> FreeEvents;      ///< guarded by EventMutex
  std::vector<CUevent> FreeTimedEvents; ///< guarded by EventMutex
  std::mutex FeederMutex;
  std::shared_ptr<SliceFeeder> Feeder;
};

/// Every function of module \p Handle (the caller makes its context
/// current).
std::vector<CUfunction> moduleFunctions(CUmodule Handle);

struct ModuleImpl {
  ModuleImpl(std::shared_ptr<RuntimeImpl> Runtime, CUmodule Handle,
             bool Owned = true)
      : Runtime(std::move(Runtime)), Handle(Handle), Owned(Owned) {}
  ~ModuleImpl();
  std::shared_ptr<RuntimeImpl> Runtime;
  CUmodule Handle;
  bool Owned; ///< false for modules another loader owns (Runtime::kernelOf)
};

struct KernelImpl {
  std::shared_ptr<ModuleImpl> Module;
  std::string Name;
  CUfunction Original = nullptr;
  CUfunction Slice = nullptr; ///< null if the compiler refused the kernel
  CUfunction Ptb = nullptr;
  /// The module has the PTB variant's ABI marker (task.h).
  bool PtbTakesFirstShares = false;
  std::vector<size_t> ParamSizes; ///< of the original kernel

  CUfunction function(Mode M) const;
  /// Allows \p Bytes of dynamic shared memory for the function of \p M
  /// where that exceeds the 48 KiB every kernel gets without opting in
  /// (a driver call the first time only).
  void allowSharedMemory(Mode M, uint32_t Bytes) const;
  /// Of the original kernel, read from the driver on first use.
  KernelResources resources() const;

private:
  /// Per Mode: what the driver said of that function.
  mutable FunctionFacts Facts[3];
};

/// State of a slice launch, shared with the host callbacks that retire
/// slices. Guarded by its own mutex, never held across a CUDA call, so the
/// driver's callback thread cannot be blocked by a thread issuing work.
struct SliceProgress {
  std::mutex Mutex;
  std::condition_variable Changed;
  uint32_t Issued = 0;    ///< end of the last slice handed to the GPU
  uint32_t Completed = 0; ///< end of the last slice known finished
  std::deque<uint32_t> InFlight; ///< widths of issued, unfinished slices
  bool PauseRequested = false;
  std::exception_ptr Failure;
};

struct LaunchImpl : std::enable_shared_from_this<LaunchImpl> {
  LaunchImpl(std::shared_ptr<const KernelImpl> Kernel,
             const LaunchConfig &Config);
  ~LaunchImpl();
  /// Dynamic shared memory a launch of \p M needs for \p Config.
  static uint32_t sharedMemFor(Mode M, const LaunchConfig &Config);
  LaunchImpl(const LaunchImpl &) = delete;
  LaunchImpl &operator=(const LaunchImpl &) = delete;

  void start(std::span<void *const> Args);
  bool pause();
  void requestPause();
  void cancel();
  /// Makes the runtime's context current, after Runtime.checkContext() for
  /// this launch; a lost context fails it without another driver call (its
  /// handles are stale).
  ScopedContext enterContext();
  void resume(uint32_t NewWidth);
  void resumeAsOriginal();
  void vacate(uint32_t Sms);
  LaunchState wait();
  LaunchState poll();
  Progress progress();
  /// Resumes if paused and waits for completion, reporting (not throwing)
  /// errors: the end of a Launch handle's life.
  void finish() noexcept;

  /// Slices: issues slices while the window has room and no pause is
  /// requested. Returns false once the launch will never need another slice
  /// issued (all are issued, or it failed); a paused launch returns true.
  bool feedSlices();

  std::shared_ptr<const KernelImpl> Kernel;
  RuntimeImpl &Runtime;
  LaunchConfig Config;
  CUfunction Function = nullptr;
  /// Dynamic shared memory of each launch: the original's, plus the PTB
  /// loop state for PTB (task.h, BATON_PTB_DYNAMIC_SHARED_BYTES).
  uint32_t SharedMemBytes = 0;
  uint32_t End = 0;   ///< virtual blocks in the grid
  uint32_t Width = 0; ///< workers, or blocks per slice
  ArgPack Args;
  /// A PTB launch's task shape, if the task can be fresh (TaskPool.h).
  std::optional<TaskShape> Shape;
  TaskSlot *Slot = nullptr;
  uint32_t Generation = 0;
  int StreamPriority = 0;
  /// Private stream of resumed runs and slices, from Runtime.Streams; a
  /// PTB launch gives it back once Done.
  CUstream Inner = nullptr;
  /// Slices: a second private stream, taken with Inner, on which the
  /// retirement (a host function) of each slice issued after one has
  /// retired waits for SliceEnd, so that it does not hold the next slice
  /// back on Inner (SliceLaunch.cpp).
  CUstream Retire = nullptr;
  /// Slices: recorded after each slice retired on Retire.
  CUevent SliceEnd = nullptr;
  /// LaunchesInFlight counts this launch (its user stream may wait).
  bool CountedInFlight = false;
  /// Recorded on the user's stream at start, unless the first run went there.
  CUevent UserReady = nullptr;
  CUevent ControlReady = nullptr; ///< task writes on the control stream done
  /// ControlReady was recorded; a launch on a fresh task has not, until a
  /// resume writes the flag.
  bool ControlReadyRecorded = false;
  CUevent Drained = nullptr;    ///< the last kernel issued has finished
  /// RuntimeOptions::TimeRunsOnDevice, for a PTB or original launch:
  /// recorded just before each run's kernel; Drained then has timing too.
  CUevent RunBegan = nullptr;
  bool RunTimed = false; ///< RunBegan has been recorded (under Mutex)

  mutable std::mutex Mutex; ///< guards the fields below
  LaunchState State = LaunchState::Running;
  uint64_t Epoch = 0; ///< bumped by every (re)launch of the PTB kernel
  /// Blocks the current run's first shares hand out before it starts (only
  /// a first run has them): progress() leaves them out until the run ends.
  uint32_t FirstClaimedThisRun = 0;
  /// The width the task's first shares were handed out for: a launch
  /// started paused that first runs with another one, or with SMs vacated,
  /// withdraws them (withdrawFirstShares).
  uint32_t FirstSharesWidth = 0;
  bool PreemptRaised = false;
  /// A write of the `preempt` flag was issued after the task's: the task is
  /// not fresh (one started with a watermark has no Shape to begin with).
  bool FlagWritten = false;
  /// The `preempt` watermark while not paused (vacate), and whether the
  /// current run had a nonzero one at some point: its workers may then all
  /// have left with work left, so its end must be read, not assumed Done.
  uint32_t Vacated = 0;
  bool VacatedThisRun = false;
  /// vacate() wrote the flag since the last run was issued: the next run
  /// must wait for the write.
  bool WatermarkPending = false;
  std::exception_ptr Failure;
  uint32_t Next = 0; ///< PTB cursor as last read back
  uint32_t WorkersExited = 0, WorkersPreempted = 0;
  /// WorkersPreempted when the current run was issued: the device counts
  /// from the launch's start until its last run completes.
  uint32_t PreemptedBeforeRun = 0;
  /// Done without a read-back (see settlePtb): the statistics above are
  /// read, and the PTB contract checked, on the first request for them.
  bool StatisticsStale = false;

  /// Takes Next and the statistics from the last run's report (with Mutex
  /// held, after Drained); fails the launch if it ended early without being
  /// preempted or its SMs vacated.
  void readStatistics();

  SliceProgress Slices;
  std::mutex FeedMutex; ///< serialises feedSlices (issue order = slice order)
  SliceFeeder *Feeder = nullptr; ///< woken when a slice retires

private:
  /// Raises the stop request of a Running launch (with Mutex held); false
  /// if it is not Running.
  bool raisePreempt();
  /// Writes the `preempt` watermark on the control stream.
  void writeFlag(uint32_t Watermark);
  /// What the slot holds for its next launch once this one is gone.
  std::optional<TaskShape> freshTaskLeft() const;
  void createEvents();
  /// Takes RunBegan, and Drained with timing, where runs are timed.
  void createRunTimer();
  /// Records RunBegan on \p On, where runs are timed.
  void startRunTimer(CUstream On);
  /// Takes the private stream of a launch that does not run first on the
  /// user's stream (and, for slices, Retire and SliceEnd), and queues its
  /// wait for the user's stream and the task's initialisation. These are
  /// Inner's only waits on other streams. A launch that starts paused does
  /// this only when resumed: a stream blocked in a wait can hold up, on the
  /// device, every stream that shares its hardware queue, so none is left
  /// waiting for a launch that is not running.
  void acquireInner();
  /// Before the first run of a launch started paused: takes the first
  /// shares back out of the task (on the control stream), so that its
  /// workers claim every block.
  void withdrawFirstShares();
  void startOriginal(std::span<void *const> Args);
  /// Queues the kernel in Function (the original) on \p On over the
  /// launch's grid.
  void issueOriginal(CUstream On, void **Params);
  void startSlices();
  /// Queues a run of the PTB workers and the finalize kernel on \p On, and
  /// records Drained after them.
  void issuePtb(CUstream On);
  /// Queues the slice [Begin, Begin + Count) on Inner and its retirement on
  /// Inner or, behind SliceEnd, on Retire (SliceLaunch.cpp).
  void issueSlice(uint32_t Begin, uint32_t Count, bool RetireOnInner);
  void resumeSlices();
  void waitForSlices();
  /// Slices: nothing is left in flight that a waiter must wait for (with
  /// Slices.Mutex held).
  bool slicesStopped() const;
  /// After Drained completed with \p R (the result of \p Call) for the
  /// (re)launch \p SeenEpoch: records a failure, or settles the launch.
  void settleDrained(CUresult R, uint64_t SeenEpoch, const char *Call);
  void settlePtb(uint64_t SeenEpoch);
  void settleSlices();
  /// Lets the user's stream go on after a failure, so it cannot hang on a
  /// launch that will never complete.
  void releaseUserStream() noexcept;
  /// Records \p E as the launch's failure, releases the user's stream and
  /// rethrows. Called with Mutex held.
  [[noreturn]] void fail(std::exception_ptr E);
  static void CUDA_CB retireSlice(void *Launch);
};

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_IMPL_H
