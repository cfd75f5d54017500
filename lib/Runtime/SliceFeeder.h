//===- SliceFeeder.h - The thread that keeps slice launches fed -*- C++ -*-===//
//
// A slice launch is a sequence of kernel launches that the host issues one
// window at a time, so that a pause can stop it between two slices (the
// slice variant has no preemption check of its own). Slices retire through
// host callbacks (cuLaunchHostFunc), which may not call CUDA; they only wake
// this thread, which issues the next slices of every launch with room in its
// window. One feeder per runtime serves all its slice launches.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_SLICEFEEDER_H
#define BATON_LIB_RUNTIME_SLICEFEEDER_H

#include <cuda.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace baton::detail {

struct LaunchImpl;

class SliceFeeder : public std::enable_shared_from_this<SliceFeeder> {
public:
  /// Starts the thread; it makes \p Context current for itself.
  static std::shared_ptr<SliceFeeder> start(CUcontext Context);

  /// Feeds \p Launch, across pauses, until it has issued its last slice.
  /// Held weakly: a launch whose last handle is gone is dropped.
  void add(std::weak_ptr<LaunchImpl> Launch);
  /// Something changed (a slice retired, a launch resumed): look again.
  /// Safe to call from a CUDA host callback.
  void notify();
  /// Ends the thread. Joins it, unless called on the feeder thread itself
  /// (the last reference to the runtime can be dropped there), in which
  /// case the thread finishes on its own, keeping this object alive.
  void stop();

private:
  explicit SliceFeeder(CUcontext Context) : Context(Context) {}
  void run();

  CUcontext Context;
  std::thread Thread;
  std::mutex Mutex;
  std::condition_variable Wake;
  bool Dirty = false;
  bool Stopping = false;
  std::vector<std::weak_ptr<LaunchImpl>> Active;
};

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_SLICEFEEDER_H
