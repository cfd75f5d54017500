//===- TaskPool.h - Device memory for baton_task records -------*- C++ -*-===//
//
// Every preemptible launch needs a baton_task and a 32-bit `done` word in
// device memory, a pinned host mirror to initialise and read them back with
// asynchronous copies, and a RunReport the finalize kernel writes into
// mapped host memory. Allocating these per launch would put cuMemAlloc
// and cuMemFree (which may synchronise the device) on the launch path, so
// they come from slabs that live as long as the runtime.
//
// A slot's `done` word only ever grows: each launch that takes the slot gets
// the next generation number, the stream it was issued on waits for
// `done >= generation`, and the device writes the generation when the last
// virtual block has run. No reset is needed between launches, so a stale
// wait can never be satisfied by a later launch's reset, or vice versa.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_TASKPOOL_H
#define BATON_LIB_RUNTIME_TASKPOOL_H

#include "RuntimeKernels.h"

#include "baton/task.h"

#include <cuda.h>

#include <cstdint>
#include <mutex>
#include <vector>

namespace baton::detail {

struct TaskSlot {
  CUdeviceptr Task = 0; ///< baton_task, BATON_TASK_ALIGN-aligned
  CUdeviceptr Done = 0; ///< the slot's generation word
  baton_task *Mirror = nullptr; ///< pinned host copy for async transfers
  RunReport *Report = nullptr;  ///< pinned, written by the finalize kernel
  CUdeviceptr ReportOnDevice = 0; ///< Report's address for the device
  uint32_t Generation = 0;      ///< last generation handed out
};

class TaskPool {
public:
  TaskPool() = default;
  TaskPool(const TaskPool &) = delete;
  TaskPool &operator=(const TaskPool &) = delete;
  ~TaskPool() = default;

  /// Frees every slab; the owning context must be current and no launch may
  /// still use a slot.
  void releaseAll() noexcept;

  /// A free slot; allocates a slab on \p Stream's context if none is free.
  TaskSlot *acquire(CUstream Stream);
  void release(TaskSlot *Slot);

  /// Pinned words holding BATON_PREEMPT_ALL and 0: sources for
  /// PreemptSignal::Memcpy.
  const uint32_t *pinnedAll() const { return Constants + 1; }
  const uint32_t *pinnedZero() const { return Constants; }

private:
  void grow(CUstream Stream);

  struct Slab {
    CUdeviceptr Device = 0;
    void *Host = nullptr;
    std::vector<TaskSlot> Slots;
  };
  std::mutex Mutex;
  std::vector<Slab> Slabs;
  std::vector<TaskSlot *> Free;
  uint32_t *Constants = nullptr;
};

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_TASKPOOL_H
