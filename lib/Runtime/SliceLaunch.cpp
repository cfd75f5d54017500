//===- SliceLaunch.cpp - Issuing, pausing and resuming slice launches ------===//
//
// A slice launch covers [0, end) with kernels of `Width` blocks each. Before
// each slice a stream memory operation on the private stream sets the task's
// `begin`: it executes after the previous slice finished reading it, so one
// task serves every slice. The last slice is followed by the write of `done`
// that releases the user's stream; no finalize kernel is needed, because
// the host knows which slice is last.
//
// A host function retires each slice. Queued behind the slice on the
// slices' stream it holds the next slice back until the driver's callback
// thread has run it (on the H100, one-wave slices of 12 us took 4.3x the
// original's time with every retirement there, 2.35x with every one on a
// second stream). So slices issued once a slice has retired are retired on
// a second private stream, behind an event recorded after the slice.
// Those issued before stay on the slices' stream: until the first slice has
// run, that stream may wait for the user's stream (a launch queued behind
// a paused one), and the second stream must never wait with it, since
// every stream blocked in a wait on the device counts against the hardware
// queues (docs/scheduling.md, "Deadlocks avoided"). Afterwards the second
// stream waits only for slices queued behind running ones.
//
// At most RuntimeOptions::SliceWindow slices are in flight. A pause stops
// issuing and waits for those to retire, so a slice launch pauses within
// that many slices; the checkpoint is the end of the last slice issued.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Impl.h"
#include "LaunchMath.h"
#include "SliceFeeder.h"

using namespace baton;
using namespace baton::detail;

void LaunchImpl::startSlices() {
  Feeder = &Runtime.feeder();
  feedSlices();
  {
    std::lock_guard S(Slices.Mutex);
    if (Slices.Failure)
      std::rethrow_exception(Slices.Failure);
  }
  Feeder->add(weak_from_this());
}

bool LaunchImpl::feedSlices() {
  std::lock_guard Feed(FeedMutex);
  for (;;) {
    uint32_t Begin, Count;
    bool AnyRetired;
    {
      std::lock_guard S(Slices.Mutex);
      if (Slices.Failure || Slices.Issued == End)
        return false;
      if (Slices.PauseRequested ||
          Slices.InFlight.size() >= Runtime.Options.SliceWindow)
        return true;
      AnyRetired = Slices.Completed != 0;
      Begin = Slices.Issued;
      Count = sliceWidth(Begin, End, Width);
      Slices.Issued += Count;
      Slices.InFlight.push_back(Count);
    }
    try {
      issueSlice(Begin, Count, /*RetireOnInner=*/!AnyRetired);
    } catch (...) {
      {
        std::lock_guard S(Slices.Mutex);
        Slices.Failure = std::current_exception();
        Slices.InFlight.pop_back();
      }
      Slices.Changed.notify_all();
      releaseUserStream();
      return false;
    }
  }
}

void LaunchImpl::issueSlice(uint32_t Begin, uint32_t Count,
                            bool RetireOnInner) {
  const DriverApi &D = driver();
  std::string Name = Kernel->Name + BATON_SLICE_SUFFIX;
  check(D.cuStreamWriteValue32(Inner, Slot->Task + BATON_TASK_OFFSET_BEGIN,
                               Begin, CU_STREAM_WRITE_VALUE_DEFAULT),
        "cuStreamWriteValue32 (slice begin)", Name);
  const Dim3 &B = Config.Block;
  check(D.cuLaunchKernel(Function, Count, 1, 1, B.x, B.y, B.z, SharedMemBytes,
                         Inner, Args.kernelParams(), nullptr),
        "cuLaunchKernel", Name);
  if (Begin + Count == End)
    check(D.cuStreamWriteValue32(Inner, Slot->Done, Generation,
                                 CU_STREAM_WRITE_VALUE_DEFAULT),
          "cuStreamWriteValue32 (done)", Name);
  CUstream RetireOn = Inner;
  if (!RetireOnInner) {
    check(D.cuEventRecord(SliceEnd, Inner), "cuEventRecord (slice end)",
          Name);
    check(D.cuStreamWaitEvent(Retire, SliceEnd, 0), "cuStreamWaitEvent",
          Name);
    RetireOn = Retire;
  }
  check(D.cuLaunchHostFunc(RetireOn, &LaunchImpl::retireSlice, this),
        "cuLaunchHostFunc", Name);
}

void CUDA_CB LaunchImpl::retireSlice(void *Opaque) {
  // Runs on the driver's callback thread: no CUDA calls, no lock that is
  // ever held across one.
  auto *L = static_cast<LaunchImpl *>(Opaque);
  {
    std::lock_guard S(L->Slices.Mutex);
    L->Slices.Completed += L->Slices.InFlight.front();
    L->Slices.InFlight.pop_front();
  }
  L->Slices.Changed.notify_all();
  L->Feeder->notify();
}

void LaunchImpl::resumeSlices() {
  {
    std::lock_guard S(Slices.Mutex);
    Slices.PauseRequested = false;
  }
  feedSlices();
  std::exception_ptr Failure;
  {
    std::lock_guard S(Slices.Mutex);
    Failure = Slices.Failure;
  }
  if (Failure)
    fail(Failure);
  Feeder->notify();
}

bool LaunchImpl::slicesStopped() const {
  return Slices.Failure || Slices.Completed == End ||
         (Slices.PauseRequested && Slices.InFlight.empty());
}

void LaunchImpl::waitForSlices() {
  std::unique_lock S(Slices.Mutex);
  Slices.Changed.wait(S, [&] { return slicesStopped(); });
}

void LaunchImpl::settleSlices() {
  if (State != LaunchState::Running)
    return;
  std::unique_lock S(Slices.Mutex);
  if (Slices.Failure) {
    std::exception_ptr E = Slices.Failure;
    S.unlock();
    fail(E);
  }
  if (Slices.Completed == End)
    State = LaunchState::Done;
  else if (Slices.PauseRequested && Slices.InFlight.empty())
    State = LaunchState::Paused;
}
