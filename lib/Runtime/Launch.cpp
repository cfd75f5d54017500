//===- Launch.cpp - Starting, pausing and resuming launches ---------------===//
//
// A PTB launch on the user's stream S that is not started paused (nor asked
// for a private first run) runs its first kernel on S itself, behind the
// task's initialisation:
//
//   control: copy the task in; (record ControlReady) ----.
//   S:       [earlier work] wait ControlReady <-----------' ptb kernel;
//            finalize; (record Drained); wait done >= gen; [later work]
//
// finalize publishes the generation to `done` only if the cursor reached
// `end`, so S moves on exactly when every virtual block has run, without the
// host. pause() raises `preempt` on the control stream (which never carries a
// kernel, so the write does not queue behind the one it interrupts), then
// waits for Drained. A paused launch is resumed on a private stream, since S
// is held by its wait; the first run has drained by then, so the private
// stream needs only the flag's clear:
//
//   control: clear preempt; (record ControlReady) ----.
//   inner:   wait ControlReady <-----------------------' ptb kernel;
//            finalize; (record Drained)
//
// All writes of the flag and the task go through the control stream, so a
// pause can be overtaken neither by the clear of an earlier resume nor by
// the task's initialisation. A launch that finds a slot fresh for its shape
// (TaskPool.h) writes no task: its first kernel waits for nothing on the
// control stream, and a pause raised before it starts stops it all the same.
// A launch started paused runs nothing on S: S records UserReady and waits
// at once, and the private stream waits for UserReady and ControlReady
// before the first run. Where that run has another width than the task's
// first shares were made for, or SMs were vacated meanwhile, the control
// stream zeroes the shares and the cursor before ControlReady. A private
// first run (LaunchConfig::FirstRunOnPrivateStream) is the same without the
// pause.
//
// vacate() writes a watermark below BATON_PREEMPT_ALL the same way: only the
// workers on the SMs below it leave, and the run goes on. Such a run may end
// with work left (every worker was on a vacated SM), so its end is read
// from the finalize kernel's report rather than assumed.
//
// Slice launches share the set-up and run on the private stream;
// SliceLaunch.cpp issues their kernels.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Impl.h"
#include "LaunchMath.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

using namespace baton;
using namespace baton::detail;

static std::string variantName(const KernelImpl &K, Mode M) {
  switch (M) {
  case Mode::Original:
    return K.Name;
  case Mode::Slices:
    return K.Name + BATON_SLICE_SUFFIX;
  case Mode::Ptb:
    return K.Name + BATON_PTB_SUFFIX;
  }
  return K.Name;
}

static const char *stateName(LaunchState S) {
  switch (S) {
  case LaunchState::Running:
    return "running";
  case LaunchState::Paused:
    return "paused";
  case LaunchState::Done:
    return "done";
  case LaunchState::Failed:
    return "failed";
  }
  return "?";
}

LaunchImpl::LaunchImpl(std::shared_ptr<const KernelImpl> K,
                       const LaunchConfig &C)
    : Kernel(std::move(K)), Runtime(*Kernel->Module->Runtime), Config(C) {}

LaunchImpl::~LaunchImpl() {
  const DriverApi &D = driver();
  if (!Runtime.contextAlive() ||
      D.cuCtxPushCurrent(Runtime.Context) != CUDA_SUCCESS) {
    if (CountedInFlight)
      LaunchesInFlight::remove();
    return;
  }
  // Normally the launch is complete (the handle's finish() saw to it), and
  // a PTB or original launch that settled Done saw Drained, recorded after
  // all its work, complete. Otherwise (slices, whose retirement callbacks
  // may still run; a failure) work may still be queued that uses the slot
  // and the events: Drained follows the last PTB run, on whichever stream
  // it went.
  bool Slicing = Config.LaunchMode == Mode::Slices;
  bool Settled = State == LaunchState::Done && !Slicing;
  if (!Settled && Slicing && Inner) {
    D.cuStreamSynchronize(Inner);
    if (Retire) // the host functions that name `this`
      D.cuStreamSynchronize(Retire);
  } else if (!Settled && Drained) {
    D.cuEventSynchronize(Drained);
  }
  for (CUevent E : {UserReady, ControlReady, SliceEnd})
    if (E)
      Runtime.releaseEvent(E);
  if (Drained)
    Runtime.releaseEvent(Drained, /*Timed=*/RunBegan != nullptr);
  if (RunBegan)
    Runtime.releaseEvent(RunBegan, /*Timed=*/true);
  for (CUstream S : {Inner, Retire})
    if (S)
      Runtime.Streams.release(S);
  if (Slot)
    Runtime.Tasks.release(Slot, freshTaskLeft());
  if (CountedInFlight)
    LaunchesInFlight::remove();
  CUcontext Popped;
  D.cuCtxPopCurrent(&Popped);
}

uint32_t LaunchImpl::sharedMemFor(Mode M, const LaunchConfig &Config) {
  return Config.SharedMemBytes +
         (M == Mode::Ptb ? BATON_PTB_DYNAMIC_SHARED_BYTES : 0);
}

void LaunchImpl::start(std::span<void *const> UserArgs) {
  const DriverApi &D = driver();
  validateLaunch(Config, Kernel->Name);
  if (UserArgs.size() != Kernel->ParamSizes.size())
    throw Error(ErrorKind::InvalidArgument,
                "kernel '" + Kernel->Name + "' takes " +
                    std::to_string(Kernel->ParamSizes.size()) +
                    " arguments, " + std::to_string(UserArgs.size()) +
                    " given");
  if (Config.StartPaused && Config.LaunchMode == Mode::Original)
    throw Error(ErrorKind::InvalidArgument,
                "kernel '" + Kernel->Name +
                    "': an Original launch cannot start paused");
  if (Config.VacatedSms && Config.LaunchMode != Mode::Ptb)
    throw Error(ErrorKind::InvalidArgument,
                "kernel '" + Kernel->Name +
                    "': only PTB launches can vacate SMs");
  Function = Kernel->function(Config.LaunchMode);
  SharedMemBytes = sharedMemFor(Config.LaunchMode, Config);
  Kernel->allowSharedMemory(Config.LaunchMode, SharedMemBytes);
  if (Config.LaunchMode == Mode::Original)
    return startOriginal(UserArgs);

  End = uint32_t(virtualBlockCount(Config.Grid));
  bool Ptb = Config.LaunchMode == Mode::Ptb;
  uint32_t Requested = Ptb ? Config.Workers : Config.SliceBlocks;
  Width = Requested ? std::min(Requested, End)
                    : Runtime.coResident(Function, Config.Block,
                                         SharedMemBytes, End, Kernel->Name);
  TaskShape Fields{Config.Grid.x,
                   Config.Grid.y,
                   Config.Grid.z,
                   End,
                   Ptb && Config.Prefetch ? BATON_TASK_PREFETCH : 0u,
                   Ptb ? claimChunk(Config.ClaimChunk, End) : 0u};
  // Workers on vacated SMs should leave at once rather than run a share
  // first. A worker that waits for room on an SM would run its share after
  // a pause too, so shares go only to launches whose workers all fit at
  // once. A launch started paused gets them for the width it is issued
  // with, and gives them back if its first run has another (resume()). A
  // variant built for an earlier task ABI would skip them.
  auto AllResident = [&] {
    return !Requested || Width <= Runtime.coResident(Function, Config.Block,
                                                     SharedMemBytes, End,
                                                     Kernel->Name);
  };
  if (Ptb && Runtime.Options.FirstShares && Config.FirstShares &&
      Kernel->PtbTakesFirstShares && !Config.VacatedSms && AllResident())
    Fields.FirstShare =
        baton_first_shares(0, End, Width, Fields.ClaimChunk,
                           Config.CoveringShareLimit, &Fields.FirstClaimed);
  FirstClaimedThisRun = Fields.FirstClaimed;
  FirstSharesWidth = Width;
  // Only a PTB task with no watermark can be the same from launch to launch.
  if (Ptb && !Config.VacatedSms)
    Shape = Fields;
  bool Fresh = false;
  Slot = Runtime.Tasks.acquire(Runtime.Control, Shape, Fresh);
  Generation = Slot->Generation;
  Args = ArgPack(Kernel->ParamSizes, UserArgs, Slot->Task);
  createEvents();
  // progress() takes the larger of the cursor and the report's: the report
  // of the slot's last launch must not count for this one.
  const_cast<volatile RunReport *>(Slot->Report)->Next = 0;

  if (Ptb) {
    Vacated = Config.VacatedSms;
    VacatedThisRun = Vacated != 0;
  }
  if (!Fresh) {
    baton_task &T = *Slot->Mirror;
    T = baton_task{};
    T.grid_x = Fields.GridX;
    T.grid_y = Fields.GridY;
    T.grid_z = Fields.GridZ;
    T.begin = 0;
    T.end = Fields.End;
    T.flags = Fields.Flags;
    T.claim_chunk = Fields.ClaimChunk;
    T.first_share = Fields.FirstShare;
    T.first_claimed = Fields.FirstClaimed;
    T.next = Fields.FirstClaimed;
    T.preempt = Vacated;
    check(D.cuMemcpyHtoDAsync(Slot->Task, Slot->Mirror, sizeof(baton_task),
                              Runtime.Control),
          "cuMemcpyHtoDAsync (task)", Kernel->Name);
    check(D.cuEventRecord(ControlReady, Runtime.Control), "cuEventRecord");
    ControlReadyRecorded = true;
  }
  if (Ptb && !Config.StartPaused && !Config.FirstRunOnPrivateStream) {
    // Taken before anything is issued, so that a pool without a free stream
    // fails the launch before it runs; a resume then needs no stream.
    Inner = Runtime.Streams.acquire(StreamPriority, Kernel->Name);
    if (ControlReadyRecorded)
      check(D.cuStreamWaitEvent(Config.Stream, ControlReady, 0),
            "cuStreamWaitEvent (user stream)", Kernel->Name);
    issuePtb(Config.Stream);
  } else {
    UserReady = Runtime.acquireEvent();
    check(D.cuEventRecord(UserReady, Config.Stream),
          "cuEventRecord (user stream)", Kernel->Name);
    if (Config.StartPaused) {
      // Nothing runs until resume(), which takes the private stream and has
      // it wait for UserReady: the stream order holds however late that is.
      // The pool is filled now, while this launch's wait is not queued yet.
      Runtime.Streams.prepare(StreamPriority);
      State = LaunchState::Paused;
      if (Config.LaunchMode == Mode::Slices) {
        Slices.PauseRequested = true;
        startSlices();
      }
    } else {
      acquireInner();
      if (Ptb)
        issuePtb(Inner);
      else
        startSlices();
    }
  }
  // Only now that the kernels that will set `done` are queued may S wait on
  // it: a failure above must not leave S blocked.
  LaunchesInFlight::add();
  CountedInFlight = true;
  try {
    check(D.cuStreamWaitValue32(Config.Stream, Slot->Done, Generation,
                                CU_STREAM_WAIT_VALUE_GEQ),
          "cuStreamWaitValue32 (user stream)", Kernel->Name);
  } catch (...) {
    std::lock_guard Lock(Mutex);
    fail(std::current_exception());
  }
}

void LaunchImpl::startOriginal(std::span<void *const> UserArgs) {
  const DriverApi &D = driver();
  createRunTimer();
  End = uint32_t(std::min<uint64_t>(virtualBlockCount(Config.Grid),
                                    UINT32_MAX));
  Width = End;
  startRunTimer(Config.Stream);
  issueOriginal(Config.Stream, const_cast<void **>(UserArgs.data()));
  check(D.cuEventRecord(Drained, Config.Stream), "cuEventRecord",
        Kernel->Name);
}

void LaunchImpl::issueOriginal(CUstream On, void **Params) {
  const Dim3 &G = Config.Grid, &B = Config.Block;
  check(driver().cuLaunchKernel(Function, G.x, G.y, G.z, B.x, B.y, B.z,
                                SharedMemBytes, On, Params, nullptr),
        "cuLaunchKernel", Kernel->Name);
}

void LaunchImpl::createEvents() {
  const DriverApi &D = driver();
  // The variant runs at the priority of the stream it was issued on.
  check(D.cuStreamGetPriority(Config.Stream, &StreamPriority),
        "cuStreamGetPriority", Kernel->Name);
  ControlReady = Runtime.acquireEvent();
  createRunTimer();
}

void LaunchImpl::createRunTimer() {
  // A slice launch's runs are many kernels, with the host between them.
  bool Timed = Runtime.Options.TimeRunsOnDevice && Config.TimeRuns &&
               Config.LaunchMode != Mode::Slices;
  // RunBegan first: where it is set, Drained came from the timed pool.
  if (Timed)
    RunBegan = Runtime.acquireEvent(/*Timed=*/true);
  Drained = Runtime.acquireEvent(Timed);
}

void LaunchImpl::startRunTimer(CUstream On) {
  if (!RunBegan)
    return;
  check(driver().cuEventRecord(RunBegan, On), "cuEventRecord (run timer)",
        Kernel->Name);
  // The pool's events hold their last owner's records until then.
  RunTimed = true;
}

void LaunchImpl::acquireInner() {
  const DriverApi &D = driver();
  Inner = Runtime.Streams.acquire(StreamPriority, Kernel->Name);
  if (Config.LaunchMode == Mode::Slices) {
    Retire = Runtime.Streams.acquire(StreamPriority, Kernel->Name);
    SliceEnd = Runtime.acquireEvent();
  }
  check(D.cuStreamWaitEvent(Inner, UserReady, 0), "cuStreamWaitEvent");
  if (ControlReadyRecorded)
    check(D.cuStreamWaitEvent(Inner, ControlReady, 0), "cuStreamWaitEvent");
}

void LaunchImpl::withdrawFirstShares() {
  // With the shares of another width, workers would skip blocks or run
  // some twice; on a vacated SM they would run a share before leaving.
  // The runtime's tasks begin at 0, so the cursor goes back there.
  // Written as the flag is (never a memset, which the driver may run as a
  // kernel that waits for room behind the BE work on the device).
  Runtime.writeTaskWord(*Slot, BATON_TASK_OFFSET_FIRST_SHARE, 0,
                        "first share");
  Runtime.writeTaskWord(*Slot, BATON_TASK_OFFSET_FIRST_CLAIMED, 0,
                        "first claimed");
  Runtime.writeTaskWord(*Slot, BATON_TASK_OFFSET_NEXT, 0, "cursor");
  FirstClaimedThisRun = 0;
  if (Shape)
    Shape->FirstShare = Shape->FirstClaimed = 0;
}

void LaunchImpl::writeFlag(uint32_t Watermark) {
  Runtime.writePreempt(*Slot, Watermark);
  FlagWritten = true;
}

std::optional<TaskShape> LaunchImpl::freshTaskLeft() const {
  // The finalize kernel resets the task after a run that reached `end`;
  // a Done PTB launch has seen that kernel complete (Drained). One with a
  // Shape that is now Original ran the original instead (resumeAsOriginal)
  // and never touched the task.
  if (!Shape || State != LaunchState::Done || FlagWritten)
    return std::nullopt;
  if (Config.LaunchMode == Mode::Original)
    return Shape;
  const volatile RunReport &R = *Slot->Report;
  if (R.Next < End)
    return std::nullopt;
  return Shape;
}

void LaunchImpl::issuePtb(CUstream On) {
  const DriverApi &D = driver();
  const Dim3 &B = Config.Block;
  startRunTimer(On);
  check(D.cuLaunchKernel(Function, Width, 1, 1, B.x, B.y, B.z, SharedMemBytes,
                         On, Args.kernelParams(), nullptr),
        "cuLaunchKernel", variantName(*Kernel, Mode::Ptb));
  void *FinalizeArgs[] = {&Slot->Task, &Slot->Done, &Generation,
                          &Slot->ReportOnDevice};
  CUlaunchAttribute Dependent = {};
  Dependent.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  Dependent.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig Finalize = {};
  Finalize.gridDimX = Finalize.gridDimY = Finalize.gridDimZ = 1;
  Finalize.blockDimX = Finalize.blockDimY = Finalize.blockDimZ = 1;
  Finalize.hStream = On;
  Finalize.attrs = &Dependent;
  Finalize.numAttrs =
      Runtime.FinalizeIsDependent && Config.DependentFinalize ? 1 : 0;
  check(D.cuLaunchKernelEx(&Finalize, Runtime.Finalize, FinalizeArgs, nullptr),
        "cuLaunchKernelEx (finalize)", Kernel->Name);
  check(D.cuEventRecord(Drained, On), "cuEventRecord", Kernel->Name);
  ++Epoch;
}

void LaunchImpl::fail(std::exception_ptr E) {
  Failure = E;
  State = LaunchState::Failed;
  releaseUserStream();
  std::rethrow_exception(E);
}

void LaunchImpl::releaseUserStream() noexcept {
  if (!Slot)
    return;
  // Best effort: after a fault the context may be gone, and then S is too.
  driver().cuStreamWriteValue32(Runtime.Control, Slot->Done, Generation,
                                CU_STREAM_WRITE_VALUE_DEFAULT);
}

ScopedContext LaunchImpl::enterContext() {
  try {
    Runtime.checkContext(Kernel->Name);
  } catch (...) {
    std::lock_guard Lock(Mutex);
    Failure = std::current_exception();
    State = LaunchState::Failed;
    throw;
  }
  return ScopedContext(Runtime.Context);
}

void LaunchImpl::settlePtb(uint64_t SeenEpoch) {
  if (Epoch != SeenEpoch || State != LaunchState::Running)
    return; // resumed or settled by another thread meanwhile
  if (!PreemptRaised && !VacatedThisRun) {
    // Nobody asked it to stop, so by the PTB contract it finished; the
    // statistics are read (and the contract checked) when someone asks.
    Next = End;
    StatisticsStale = true;
    State = LaunchState::Done;
  } else {
    readStatistics();
    State = Next >= End ? LaunchState::Done : LaunchState::Paused;
  }
  // Drained, recorded last on Inner, has completed: nothing is queued there
  // any more, and another launch may have the stream.
  if (State == LaunchState::Done && Inner)
    Runtime.Streams.release(std::exchange(Inner, nullptr));
}

void LaunchImpl::readStatistics() {
  StatisticsStale = false;
  // Drained has completed, so the finalize kernel's report of the last run
  // is in host memory: no copy, no round trip to the device.
  const volatile RunReport &R = *Slot->Report;
  Next = R.Next;
  WorkersExited = R.WorkersExited;
  WorkersPreempted = R.WorkersPreempted;
  if (Next < End && !PreemptRaised && !VacatedThisRun)
    fail(std::make_exception_ptr(Error(
        ErrorKind::InvalidState,
        "PTB launch of '" + Kernel->Name + "' ended at virtual block " +
            std::to_string(Next) + " of " + std::to_string(End) +
            " without being preempted: the variant broke the PTB contract")));
}

bool LaunchImpl::raisePreempt() {
  if (Config.LaunchMode == Mode::Original)
    throw Error(ErrorKind::InvalidState,
                "kernel '" + Kernel->Name +
                    "' was launched as Original, which cannot be paused");
  if (State == LaunchState::Failed)
    std::rethrow_exception(Failure);
  if (State != LaunchState::Running)
    return false;
  if (Config.LaunchMode == Mode::Slices) {
    std::lock_guard S(Slices.Mutex);
    Slices.PauseRequested = true;
    return true;
  }
  if (!PreemptRaised) {
    try {
      writeFlag(BATON_PREEMPT_ALL);
    } catch (...) {
      fail(std::current_exception());
    }
    PreemptRaised = true;
  }
  return true;
}

void LaunchImpl::requestPause() {
  std::lock_guard Lock(Mutex);
  raisePreempt();
}

bool LaunchImpl::pause() {
  std::unique_lock Lock(Mutex);
  if (!raisePreempt())
    return State == LaunchState::Paused;
  if (Config.LaunchMode == Mode::Slices) {
    Lock.unlock();
    {
      std::unique_lock S(Slices.Mutex);
      Slices.Changed.wait(S, [&] {
        return Slices.InFlight.empty() || Slices.Failure;
      });
    }
    Lock.lock();
    settleSlices();
    return State == LaunchState::Paused;
  }
  uint64_t Seen = Epoch;
  CUevent Event = Drained;
  Lock.unlock();
  CUresult R = driver().cuEventSynchronize(Event);
  Lock.lock();
  if (R != CUDA_SUCCESS)
    try {
      check(R, "cuEventSynchronize (pause)", variantName(*Kernel, Mode::Ptb));
    } catch (...) {
      fail(std::current_exception());
    }
  settlePtb(Seen);
  return State == LaunchState::Paused;
}

void LaunchImpl::resume(uint32_t NewWidth) {
  if (Config.LaunchMode == Mode::Original)
    throw Error(ErrorKind::InvalidState,
                "kernel '" + Kernel->Name +
                    "' was launched as Original, which cannot be resumed");
  std::lock_guard Lock(Mutex);
  if (State != LaunchState::Paused)
    throw Error(ErrorKind::InvalidState,
                "cannot resume launch of '" + Kernel->Name + "': it is " +
                    stateName(State) + ", not paused");
  if (NewWidth)
    Width = std::min(NewWidth, End);
  State = LaunchState::Running;
  const DriverApi &D = driver();
  if (!Inner) // started paused: nothing was queued for it yet
    try {
      acquireInner();
    } catch (...) {
      fail(std::current_exception());
    }
  if (Config.LaunchMode == Mode::Slices)
    return resumeSlices();
  try {
    // A launch that started paused never raised the flag; one that stopped
    // because its SMs were vacated still holds the watermark.
    if (PreemptRaised)
      writeFlag(Vacated);
    // A first run keeps its shares only as they were handed out; a later
    // one has none (the first run's finalize cleared them).
    bool FirstRun = Epoch == 0;
    bool Withdraw = FirstRun && FirstClaimedThisRun &&
                    (Width != FirstSharesWidth || Vacated);
    if (Withdraw)
      withdrawFirstShares();
    if (!FirstRun)
      FirstClaimedThisRun = 0;
    if (PreemptRaised || WatermarkPending || Withdraw) {
      check(D.cuEventRecord(ControlReady, Runtime.Control), "cuEventRecord");
      ControlReadyRecorded = true;
      check(D.cuStreamWaitEvent(Inner, ControlReady, 0), "cuStreamWaitEvent");
    }
    PreemptRaised = WatermarkPending = false;
    VacatedThisRun = Vacated != 0;
    PreemptedBeforeRun = WorkersPreempted; // read when the last run settled
    issuePtb(Inner);
  } catch (...) {
    fail(std::current_exception());
  }
}

void LaunchImpl::resumeAsOriginal() {
  std::lock_guard Lock(Mutex);
  if (Config.LaunchMode != Mode::Ptb || State != LaunchState::Paused ||
      Inner || Epoch != 0)
    throw Error(ErrorKind::InvalidState,
                "cannot run the original of '" + Kernel->Name +
                    "' instead: only a PTB launch that started paused and "
                    "has run nothing can");
  const DriverApi &D = driver();
  try {
    // The stream order as for a first run: behind the user's stream and
    // the task's copy (which the original does not read, but the slot
    // keeps for the next launch of this shape).
    acquireInner();
    Function = Kernel->function(Mode::Original);
    SharedMemBytes = sharedMemFor(Mode::Original, Config);
    Kernel->allowSharedMemory(Mode::Original, SharedMemBytes);
    // The packed arguments end with the task pointer, which the original
    // does not declare: the driver reads the kernel's own parameters only.
    startRunTimer(Inner);
    issueOriginal(Inner, Args.kernelParams());
    check(D.cuStreamWriteValue32(Inner, Slot->Done, Generation,
                                 CU_STREAM_WRITE_VALUE_DEFAULT),
          "cuStreamWriteValue32 (done)", Kernel->Name);
    check(D.cuEventRecord(Drained, Inner), "cuEventRecord", Kernel->Name);
  } catch (...) {
    fail(std::current_exception());
  }
  Config.LaunchMode = Mode::Original;
  Width = End;
  State = LaunchState::Running;
}

void LaunchImpl::vacate(uint32_t Sms) {
  if (Config.LaunchMode != Mode::Ptb)
    throw Error(ErrorKind::InvalidState,
                "kernel '" + Kernel->Name +
                    "': only PTB launches can vacate SMs");
  std::lock_guard Lock(Mutex);
  if (State == LaunchState::Failed)
    std::rethrow_exception(Failure);
  if (Sms == Vacated || State == LaunchState::Done)
    return;
  Vacated = Sms;
  // While a pause is raised the flag stops every worker; resume() writes
  // the watermark when it clears it.
  if (PreemptRaised)
    return;
  try {
    writeFlag(Sms);
  } catch (...) {
    fail(std::current_exception());
  }
  // The next run must not start before the write lands: it could read the
  // old watermark, stop with work left, and be taken for finished.
  WatermarkPending = true;
  if (State == LaunchState::Running)
    VacatedThisRun |= Sms != 0;
}

void LaunchImpl::cancel() {
  std::lock_guard Lock(Mutex);
  if (State != LaunchState::Paused)
    throw Error(ErrorKind::InvalidState,
                "cannot cancel launch of '" + Kernel->Name + "': it is " +
                    stateName(State) + ", not paused");
  Failure = std::make_exception_ptr(
      Error(ErrorKind::InvalidState,
            "launch of '" + Kernel->Name +
                "' was cancelled while paused; its remaining blocks did not "
                "run"));
  State = LaunchState::Failed;
  releaseUserStream();
}

LaunchState LaunchImpl::wait() {
  for (;;) {
    std::unique_lock Lock(Mutex);
    if (State == LaunchState::Failed)
      std::rethrow_exception(Failure);
    if (State != LaunchState::Running)
      return State;
    if (Config.LaunchMode == Mode::Slices) {
      Lock.unlock();
      waitForSlices();
      Lock.lock();
      settleSlices();
      continue;
    }
    uint64_t Seen = Epoch;
    CUevent Event = Drained;
    Lock.unlock();
    CUresult R = driver().cuEventSynchronize(Event);
    Lock.lock();
    settleDrained(R, Seen, "cuEventSynchronize (wait)");
  }
}

void LaunchImpl::settleDrained(CUresult R, uint64_t SeenEpoch,
                               const char *Call) {
  if (R != CUDA_SUCCESS)
    try {
      check(R, Call, variantName(*Kernel, Config.LaunchMode));
    } catch (...) {
      fail(std::current_exception());
    }
  if (Config.LaunchMode != Mode::Original)
    return settlePtb(SeenEpoch);
  State = LaunchState::Done;
  if (Inner) // resumeAsOriginal's stream: nothing is queued there any more
    Runtime.Streams.release(std::exchange(Inner, nullptr));
}

LaunchState LaunchImpl::poll() {
  std::unique_lock Lock(Mutex);
  if (State == LaunchState::Failed)
    std::rethrow_exception(Failure);
  if (State != LaunchState::Running)
    return State;
  if (Config.LaunchMode == Mode::Slices) {
    {
      std::lock_guard S(Slices.Mutex);
      if (!slicesStopped())
        return State;
    }
    settleSlices();
    return State;
  }
  CUresult R = driver().cuEventQuery(Drained);
  if (R != CUDA_ERROR_NOT_READY)
    settleDrained(R, Epoch, "cuEventQuery (poll)");
  return State;
}

Progress LaunchImpl::progress() {
  std::lock_guard Lock(Mutex);
  switch (Config.LaunchMode) {
  case Mode::Original:
    return {State == LaunchState::Done ? End : 0, End};
  case Mode::Slices: {
    std::lock_guard S(Slices.Mutex);
    return {Slices.Completed, End};
  }
  case Mode::Ptb:
    if (State == LaunchState::Running) {
      // A run that completed may have had its cursor reset by the finalize
      // kernel (TaskPool.h), which wrote it to the report first.
      Runtime.readTask(*Slot, Kernel->Name);
      const volatile RunReport &R = *Slot->Report;
      uint32_t Reported = R.Next;
      // The first shares were handed out before the run started, and which
      // of them have begun cannot be told: they count once it has ended.
      uint32_t Claimed = Slot->Mirror->next;
      Claimed -= std::min(Claimed, FirstClaimedThisRun);
      uint32_t Cursor = std::max(Claimed, Reported);
      return {std::min(Cursor, End), End};
    }
    return {std::min(Next, End), End};
  }
  return {0, End};
}

void LaunchImpl::finish() noexcept {
  {
    std::lock_guard Lock(Mutex);
    if (State == LaunchState::Failed)
      return; // already reported to whoever saw it fail
  }
  try {
    for (;;) {
      LaunchState S = wait();
      if (S != LaunchState::Paused)
        return;
      if (Config.LaunchMode == Mode::Ptb)
        vacate(0); // nothing is left to share SMs with
      resume(0);
    }
  } catch (const std::exception &E) {
    std::fprintf(stderr,
                 "baton: launch of '%s' could not be completed when its "
                 "handle was destroyed: %s\n",
                 Kernel->Name.c_str(), E.what());
  }
}

//===-- Launch handle -----------------------------------------------------===//

Launch::Launch(std::shared_ptr<LaunchImpl> Impl) : Impl(std::move(Impl)) {}
Launch::Launch(Launch &&) noexcept = default;
Launch &Launch::operator=(Launch &&Other) noexcept {
  if (this != &Other) {
    Launch Replaced(std::move(*this)); // completes the old launch, if any
    Impl = std::move(Other.Impl);
  }
  return *this;
}

Launch::~Launch() {
  if (!Impl || !Impl->Runtime.contextAlive())
    return; // nothing to complete on a context that is gone
  try {
    ScopedContext Scope(Impl->Runtime.Context);
    Impl->finish();
  } catch (const std::exception &E) {
    std::fprintf(stderr, "baton: ~Launch: %s\n", E.what());
  }
}

bool Launch::pause() {
  ScopedContext Scope = Impl->enterContext();
  return Impl->pause();
}

void Launch::requestPause() {
  ScopedContext Scope = Impl->enterContext();
  Impl->requestPause();
}

void Launch::resume(uint32_t Width) {
  ScopedContext Scope = Impl->enterContext();
  Impl->resume(Width);
}

void Launch::resumeAsOriginal() {
  ScopedContext Scope = Impl->enterContext();
  Impl->resumeAsOriginal();
}

void Launch::vacate(uint32_t Sms) {
  ScopedContext Scope = Impl->enterContext();
  Impl->vacate(Sms);
}

uint32_t Launch::vacatedSms() const {
  std::lock_guard Lock(Impl->Mutex);
  return Impl->Vacated;
}

void Launch::cancel() {
  ScopedContext Scope = Impl->enterContext();
  Impl->cancel();
}

LaunchState Launch::wait() {
  ScopedContext Scope = Impl->enterContext();
  return Impl->wait();
}

LaunchState Launch::poll() {
  ScopedContext Scope(Impl->Runtime.Context);
  return Impl->poll();
}

Progress Launch::progress() const {
  ScopedContext Scope = Impl->enterContext();
  return Impl->progress();
}

LaunchState Launch::state() const {
  std::lock_guard Lock(Impl->Mutex);
  return Impl->State;
}

Mode Launch::mode() const { return Impl->Config.LaunchMode; }
uint32_t Launch::width() const { return Impl->Width; }

uint32_t Launch::workersExited() const {
  ScopedContext Scope(Impl->Runtime.Context);
  std::lock_guard Lock(Impl->Mutex);
  if (Impl->StatisticsStale)
    Impl->readStatistics();
  return Impl->WorkersExited;
}

uint32_t Launch::workersPreempted() const {
  ScopedContext Scope(Impl->Runtime.Context);
  std::lock_guard Lock(Impl->Mutex);
  if (Impl->StatisticsStale)
    Impl->readStatistics();
  return Impl->WorkersPreempted;
}

std::optional<std::chrono::nanoseconds> Launch::lastRunTime() const {
  if (!Impl->RunBegan) // set before the launch was handed out, never after
    return std::nullopt;
  ScopedContext Scope(Impl->Runtime.Context);
  std::lock_guard Lock(Impl->Mutex);
  // Once a run has settled, Drained, the later of the two, has completed.
  // A launch started paused is Paused before it has run at all.
  if (!Impl->RunTimed || (Impl->State != LaunchState::Paused &&
                          Impl->State != LaunchState::Done))
    return std::nullopt;
  float Ms = 0;
  if (driver().cuEventElapsedTime(&Ms, Impl->RunBegan, Impl->Drained) !=
          CUDA_SUCCESS ||
      Ms < 0)
    return std::nullopt;
  return std::chrono::nanoseconds(std::llround(double(Ms) * 1e6));
}

uint32_t Launch::workersLeftLastRun() const {
  std::lock_guard Lock(Impl->Mutex);
  // Stale statistics belong to a run that was neither paused nor vacated.
  if (Impl->StatisticsStale)
    return 0;
  return Impl->WorkersPreempted - Impl->PreemptedBeforeRun;
}
