//===- baton/SchedulerRuntime.h - The scheduler over baton::Runtime -*- C++ -*-===//
//
// An Executor that carries the scheduler's decisions out on a real GPU
// through baton::Runtime. LC work runs as the original kernel on a stream of
// the highest priority; each BE queue gets a stream of the lowest priority,
// on which its launches run as PTB or slice launches.
//
// Limits of the runtime this executor inherits:
//  * Launch::resume() relaunches at the launch's width, so facts().CanResize
//    is false: the scheduler then time-shares, and space sharing waits for a
//    runtime resume that takes a width.
//  * Launch::pause() blocks until the launch has stopped, so requestPause()
//    returns after about signal latency + one block. The scheduler issues LC
//    launches before it pauses BE work, so the LC kernel does not wait for it.
//  * Completion is observed by one waiting thread per (re)launch; poll()
//    rethrows a baton::Error that such a thread caught.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SCHEDULERRUNTIME_H
#define BATON_SCHEDULERRUNTIME_H

#include "baton/Runtime.h"
#include "baton/Scheduler.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

namespace baton::sched {

/// The payload of a Work for a RuntimeExecutor: the kernel, its original
/// launch configuration (Grid, Block, SharedMemBytes; the executor chooses
/// the stream, mode and width), and its arguments by value.
struct RuntimeWork {
  Kernel K;
  LaunchConfig Config;
  std::vector<std::vector<std::byte>> Args;

  /// Captures \p Values by value, one kernel parameter each.
  template <class... T>
  static RuntimeWork make(Kernel K, const LaunchConfig &Config,
                          const T &...Values) {
    RuntimeWork W{std::move(K), Config, {}};
    (W.Args.push_back(bytesOf(Values)), ...);
    return W;
  }

private:
  template <class T> static std::vector<std::byte> bytesOf(const T &Value) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<std::byte> Bytes(sizeof(T));
    std::memcpy(Bytes.data(), &Value, sizeof(T));
    return Bytes;
  }
};

/// A Work for \p W: its shape from the configuration and the kernel's
/// registers and static shared memory, as the driver reports them.
Work makeWork(RuntimeWork W, PriorityClass Class, uint32_t Queue = 0,
              std::optional<std::chrono::microseconds> Slo = std::nullopt);

class RuntimeExecutor : public Executor {
public:
  /// Reads the device's SM count and limits; the latencies keep the
  /// defaults of DeviceFacts (measured on an H100) unless \p Latencies says
  /// otherwise.
  explicit RuntimeExecutor(Runtime &R, const DeviceFacts *Latencies = nullptr);
  /// Waits for every launch to complete (paused ones are resumed).
  ~RuntimeExecutor() override;

  const DeviceFacts &facts() const override;
  const Clock &clock() const override;
  void launch(const LaunchRequest &Request) override;
  void requestPause(uint64_t Id) override;
  void resume(uint64_t Id, uint32_t Width) override;
  std::vector<Completion> poll() override;

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace baton::sched

#endif // BATON_SCHEDULERRUNTIME_H
