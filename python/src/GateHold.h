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
// The word is written through the callback given, with the class's lock
// held.
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

  explicit GateHold(std::function<void(uint32_t)> SetWord)
      : SetWord(std::move(SetWord)) {}
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

  void hold() {
    std::lock_guard Lock(Mutex);
    Held = true;
    Since = Clock::now();
    if (On) {
      SetWord(1);
      ++Holds;
    }
    Changed.notify_all();
  }

  void release() {
    std::lock_guard Lock(Mutex);
    Held = false;
    SetWord(0);
    Changed.notify_all();
  }

  void turnOn() {
    std::lock_guard Lock(Mutex);
    On = true;
    SetWord(Held && Clock::now() - Since < MaxHold ? 1 : 0);
    if (!Timer.joinable())
      Timer = std::thread([this] { run(); });
    Changed.notify_all();
  }

  void turnOff() {
    std::lock_guard Lock(Mutex);
    On = false;
    SetWord(0);
    Changed.notify_all();
  }

  bool on() const {
    std::lock_guard Lock(Mutex);
    return On;
  }
  uint64_t holds() const {
    std::lock_guard Lock(Mutex);
    return Holds;
  }
  uint64_t expired() const {
    std::lock_guard Lock(Mutex);
    return Expired;
  }

private:
  void run() {
    std::unique_lock Lock(Mutex);
    while (!Stopping) {
      if (!Held) {
        Changed.wait(Lock);
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

  std::function<void(uint32_t)> SetWord;
  mutable std::mutex Mutex;
  std::condition_variable Changed;
  bool On = false;
  bool Held = false;
  bool Stopping = false;
  Clock::time_point Since;
  std::chrono::microseconds MaxHold{100000};
  uint64_t Holds = 0, Expired = 0;
  std::thread Timer;
};

} // namespace baton::python

#endif // BATON_PYTHON_GATEHOLD_H
