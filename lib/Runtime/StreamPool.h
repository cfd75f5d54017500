//===- StreamPool.h - Private streams, created only while none waits -*- C++ -*-===//
//
// Creating a CUDA stream can wait on the device. On the H200 (driver 580,
// CUDA 13.0), once one stream of the context was blocked in a
// cuStreamWaitValue32, the 35th stream created after it did not return until
// the wait was satisfied, with any CUDA_DEVICE_MAX_CONNECTIONS; events and
// allocations were not held up (bench/launch_chain_probe/create_probe.cu).
// A paused launch leaves its user's stream blocked in such a wait until a
// resume releases it, and the thread that would resume it may be the one
// creating a stream: a training job deadlocked that way.
//
// So the runtime creates its private streams only while no launch of the
// process holds a stream waiting, a reserve at a time, and hands them out
// from this pool; a launch gives its stream back when it completes. With
// launches in flight and no stream free, acquire() takes a free stream of
// the nearest priority, or fails with an error that says why, rather than
// risk the hang.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_STREAMPOOL_H
#define BATON_LIB_RUNTIME_STREAMPOOL_H

#include "baton/Runtime.h"

#include <cuda.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string_view>

namespace baton::detail {

/// Counts, process-wide, the launches whose user stream may be waiting on
/// the device: from just before the wait is queued until the launch object
/// goes away. Streams share their hardware across every Runtime of a
/// context, so one count serves them all.
class LaunchesInFlight {
public:
  static void add();
  static void remove() noexcept;
  /// A lock that holds add() off, owning only if no launch is in flight:
  /// while it is held, none can start waiting.
  static std::unique_lock<std::mutex> holdIfNone();
};

/// How a pool makes and destroys its streams: the driver's calls, or a
/// test's stand-ins.
struct StreamMaker {
  CUstream (*Make)(int Priority); ///< throws baton::Error on failure
  void (*Destroy)(CUstream Stream);
};
/// Non-blocking streams from cuStreamCreateWithPriority; cuStreamDestroy.
StreamMaker driverStreams();

class StreamPool {
public:
  /// Keeps up to \p Reserve free streams of each priority asked for.
  explicit StreamPool(uint32_t Reserve, StreamMaker Maker = driverStreams())
      : Reserve(Reserve), Maker(Maker) {}
  StreamPool(const StreamPool &) = delete;
  StreamPool &operator=(const StreamPool &) = delete;

  /// A non-blocking stream of \p Priority for a launch of \p Kernel (named
  /// in errors). While no launch is in flight, first tops the priority's
  /// free streams up to the reserve. Otherwise creates nothing: takes a
  /// free stream of the nearest priority, or throws an Error naming the
  /// reserve (RuntimeOptions::PrivateStreams) if none is free.
  CUstream acquire(int Priority, std::string_view Kernel);
  /// As acquire(), for a stream its owner keeps (a scheduler's queue): makes
  /// at most that one stream, not a reserve.
  CUstream acquireLasting(int Priority);
  /// Tops the free streams of \p Priority up to the reserve if no launch
  /// is in flight. A launch started paused calls it before its user stream
  /// waits, so that its resume finds a stream even if it is the first.
  void prepare(int Priority);
  /// Returns \p Stream, which acquire() gave; its owner must have nothing
  /// queued on it that another owner could be held up by.
  void release(CUstream Stream);
  /// Destroys every stream the pool made (the caller makes the context
  /// current; nothing may be queued on them).
  void destroyAll() noexcept;

private:
  /// With Mutex held: makes streams of \p Priority until \p Target are
  /// free, if no launch is in flight.
  void topUp(int Priority, uint32_t Target);
  /// With Mutex held: a free stream of the priority nearest \p Priority;
  /// null if none is free.
  CUstream takeNearest(int Priority);
  /// The error for \p User ("the launch of 'k'") finding no stream free.
  Error noneFree(std::string_view User) const;

  uint32_t Reserve;
  StreamMaker Maker;
  std::mutex Mutex;
  std::multimap<int, CUstream> Free;
  std::map<CUstream, int> PriorityOf; ///< every stream made, free or not
};

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_STREAMPOOL_H
