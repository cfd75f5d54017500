//===- baton/SchedulerRuntime.h - The scheduler over baton::Runtime -*- C++ -*-===//
//
// An Executor that carries the scheduler's decisions out on a real GPU
// through baton::Runtime. LC work runs as the original kernel on a stream of
// the highest priority; each BE queue gets a stream of the lowest priority,
// on which its launches run as PTB or slice launches. Work whose
// RuntimeWork::Config names a stream runs on that stream instead, so that it
// stays ordered with the client's other work there (the launch shim).
//
// How it maps the Executor contract onto the runtime:
//  * resume(Id, Width) is Launch::resume(Width), so facts().CanResize holds.
//  * requestPause() raises the launch's flag and returns; the launch's
//    waiter reports the pause once its last worker has left.
//  * poll() queries every running launch (Launch::poll) and rethrows the
//    baton::Error of one that failed.
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
/// launch configuration (Grid, Block, SharedMemBytes, and Stream if the
/// client's stream must order it; the executor chooses the mode and width),
/// and its arguments by value.
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
  /// Captures the arguments \p Args points to, one per parameter of \p K,
  /// as cuLaunchKernel would read them.
  static RuntimeWork capture(Kernel K, const LaunchConfig &Config,
                             void *const *Args) {
    RuntimeWork W{std::move(K), Config, {}};
    std::span<const size_t> Sizes = W.K.paramSizes();
    for (size_t I = 0; I < Sizes.size(); ++I) {
      const auto *Bytes = static_cast<const std::byte *>(Args[I]);
      W.Args.emplace_back(Bytes, Bytes + Sizes[I]);
    }
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
/// registers and static shared memory (Kernel::resources, asked of the
/// driver once per kernel).
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
  void resume(uint64_t Id, uint32_t Width, uint64_t After) override;
  void resumeAsOriginal(uint64_t Id, uint64_t After) override;
  void vacate(uint64_t Id, uint32_t Sms) override;
  std::vector<Completion> poll() override;
  /// Relaxes the service thread's graph capture mode (baton/Capture.h).
  void serviceThreadStarted() override;

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace baton::sched

#endif // BATON_SCHEDULERRUNTIME_H
