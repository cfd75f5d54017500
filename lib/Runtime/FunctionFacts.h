//===- FunctionFacts.h - What the driver says of a function, once -*- C++ -*-===//
//
// The scheduler sizes every launch from the kernel's registers and static
// shared memory, and a launch whose dynamic shared memory exceeds the 48 KiB
// every function gets must first raise the function's limit. All of it is
// fixed while the module is loaded, yet asking the driver on every launch
// put up to three driver calls on the path of each routed launch. A
// FunctionFacts belongs to one function of one KernelImpl (which keeps its
// module loaded, so the handle cannot be reused meanwhile) and asks the
// driver once; the driver calls are the caller's, so the logic is tested
// without a GPU.
//
// Thread-safe: launches of one kernel may come from several threads.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_FUNCTIONFACTS_H
#define BATON_LIB_RUNTIME_FUNCTIONFACTS_H

#include "baton/Runtime.h"

#include <atomic>
#include <cstdint>
#include <mutex>

namespace baton::detail {

class FunctionFacts {
public:
  /// Dynamic shared memory every function may use without opting in.
  static constexpr uint32_t DefaultSharedLimit = 48 * 1024;

  /// The resources, from \p Read (returning KernelResources) on the first
  /// call; a call that throws leaves them unread for the next one.
  template <class F> KernelResources resources(F &&Read) {
    std::call_once(Once, [&] { Resources = Read(); });
    return Resources;
  }

  /// Makes sure the function may use \p Bytes of dynamic shared memory:
  /// calls \p Raise(Bytes) unless \p Bytes is within the default or an
  /// earlier call allowed as much. If \p Raise throws, nothing is recorded.
  template <class F> void allowSharedMemory(uint32_t Bytes, F &&Raise) {
    if (Bytes <= Allowed.load(std::memory_order_acquire))
      return;
    // Serialised so that the limit the driver holds last is the largest.
    std::lock_guard Lock(RaiseMutex);
    if (Bytes <= Allowed.load(std::memory_order_relaxed))
      return;
    Raise(Bytes);
    Allowed.store(Bytes, std::memory_order_release);
  }

private:
  std::once_flag Once;
  KernelResources Resources;
  std::atomic<uint32_t> Allowed{DefaultSharedLimit};
  std::mutex RaiseMutex;
};

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_FUNCTIONFACTS_H
