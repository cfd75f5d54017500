//===- GateHold.h - When the bypass gate's word is set ----------*- C++ -*-===//
//
// The bypass gate (BypassGate.h) holds best-effort streams while its word
// is 1. This class decides the word, apart from CUDA and CUPTI so that it
// can be tested anywhere:
//
//  * hold() (a bracket opened while none was) sets it, if the gate is on;
//  * release() (the last bracket closed) clears it;
//  * a thread of its own clears it once the hold is the bound old, and
//    counts the hold as expired; it stays clear until the next hold();
//  * turnOff() clears it; turnOn() sets it again only if a hold began less
//    than the bound ago, so a gate restarted within a long bracket (as
//    baton.torch.profile_bypass restarts it) cannot set the word with
//    nothing left to clear it.
//
// It also decides whether the gate listens to launches at all. Listening
// is what the gate costs a job of many launches (CUPTI's callback on each),
// so once no hold has begun or ended for the idle time (setIdleAfter; 0:
// never) the same thread stops it, and the next hold() starts it again
// before it sets the word. A best-effort stream queues ungated kernels
// meanwhile, so the first request after an idle spell may wait for all of
// them, as it waits for the originals the scheduler runs while idle
// (docs/scheduling.md).
//
// The word and listening are changed through the callbacks given, with
// the class's lock held.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PYTHON_GATEHOLD_H
#define BATON_PYTHON_GATEHOLD_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace baton::python {

class GateHold {
public:
  using Clock = std::chrono::steady_clock;

  /// \p SetListening(L) starts (L) or stops listening and returns
  /// whether it could.
  GateHold(std::function<void(uint32_t)> SetWord,
           std::function<bool(bool)> SetListening)
      : SetWord(std::move(SetWord)), SetListening(std::move(SetListening)) {}
  ~GateHold() {
    {
      std::lock_guard Lock(Mutex);
      Stopping = true;
    }
    Changed.notify_all();
    if (Timer.joinable())
      Timer.join();
  }
  GateHold(const GateHold &) = delete;
  GateHold &operator=(const GateHold &) = delete;

  void setMaxHold(std::chrono::microseconds Max) {
    std::lock_guard Lock(Mutex);
    MaxHold = Max;
    Changed.notify_all();
  }

  /// How long the gate listens with no hold beginning or ending.
  void setIdleAfter(std::chrono::microseconds Idle) {
    std::lock_guard Lock(Mutex);
    IdleAfter = Idle;
    Changed.notify_all();
  }

  void hold() {
    std::lock_guard Lock(Mutex);
    Held = true;
    Since = LastChange = Clock::now();
    if (On) {
      if (!Listening) {
        Listening = SetListening(true);
        Wakes += Listening;
      }
      SetWord(1);
      ++Holds;
    }
    Changed.notify_all();
  }

  void release() {
    std::lock_guard Lock(Mutex);
    Held = false;
    LastChange = Clock::now();
    SetWord(0);
    Changed.notify_all();
  }

  /// The caller listens already (it has just started to).
  void turnOn() {
    std::lock_guard Lock(Mutex);
    On = Listening = true;
    LastChange = Clock::now();
    SetWord(Held && LastChange - Since < MaxHold ? 1 : 0);
    if (!Timer.joinable())
      Timer = std::thread([this] { run(); });
    Changed.notify_all();
  }

  /// The caller stops listening itself, once this returns.
  void turnOff() {
    std::lock_guard Lock(Mutex);
    On = Listening = false;
    SetWord(0);
    Changed.notify_all();
  }

  /// What the gate is doing and has done, read at once.
  struct State {
    bool On = false;
    bool Listening = false;
    uint64_t Holds = 0;   ///< holds that set the word
    uint64_t Expired = 0; ///< of those, ended by the bound
    uint64_t Sleeps = 0;  ///< times it stopped listening, idle
    uint64_t Wakes = 0;   ///< times a hold made it listen again
  };
  State state() const {
    std::lock_guard Lock(Mutex);
    return {On, Listening, Holds, Expired, Sleeps, Wakes};
  }

private:
  void run() {
    std::unique_lock Lock(Mutex);
    while (!Stopping) {
      if (!Held) {
        waitForIdle(Lock);
        continue;
      }
      auto Began = Since;
      auto Ended = [&] { return Stopping || !Held || Since != Began; };
      if (Changed.wait_until(Lock, Began + MaxHold, Ended))
        continue; // released, renewed by a new hold, or stopping
      if (On) {
        SetWord(0);
        ++Expired;
      }
      Changed.wait(Lock, Ended);
    }
  }

  /// With no hold: stops listening once nothing has changed for IdleAfter,
  /// unless something changes first.
  void waitForIdle(std::unique_lock<std::mutex> &Lock) {
    if (!On || !Listening || IdleAfter.count() == 0) {
      Changed.wait(Lock);
      return;
    }
    auto Last = LastChange;
    auto Idle = IdleAfter;
    if (Changed.wait_until(Lock, Last + Idle, [&] {
          return Stopping || Held || !On || !Listening ||
                 LastChange != Last || IdleAfter != Idle;
        }))
      return;
    if (SetListening(false)) {
      Listening = false;
      ++Sleeps;
    } else {
      LastChange = Clock::now(); // still listening: try again when idle
    }
  }

  std::function<void(uint32_t)> SetWord;
  std::function<bool(bool)> SetListening;
  mutable std::mutex Mutex;
  std::condition_variable Changed;
  bool On = false;
  bool Listening = false;
  bool Held = false;
  bool Stopping = false;
  Clock::time_point Since;      ///< the last hold's start
  Clock::time_point LastChange; ///< the last hold, release or turnOn
  std::chrono::microseconds MaxHold{100000};
  std::chrono::microseconds IdleAfter{0};
  uint64_t Holds = 0, Expired = 0, Sleeps = 0, Wakes = 0;
  std::thread Timer;
};

} // namespace baton::python

#endif // BATON_PYTHON_GATEHOLD_H
