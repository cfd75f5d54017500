//===- TaskPool.h - Device memory for baton_task records -------*- C++ -*-===//
//
// Every preemptible launch needs a baton_task and a 32-bit `done` word in
// device memory, and a pinned host mirror to initialise and read them back
// with asynchronous copies. Allocating these per launch would put cuMemAlloc
// and cuMemFree (which may synchronise the device) on the launch path, so
// they come from slabs that live as long as the runtime.
//
// A slot's `done` word only ever grows: each launch that takes the slot gets
// the next generation number, the stream it was issued on waits for
// `done >= generation`, and the device writes the generation when the last
// virtual block has run. No reset is needed between launches, so a stale
// wait can never be satisfied by a later launch's reset, or vice versa.
//
// A PTB launch initialises its task on the stream that runs its kernel
// (Launch.cpp), in stream order with it, and leaves `preempt` alone: only
// the control stream writes that flag, so a pause request can never be
// overtaken by an initialisation. That needs the flag to be zero on the
// device when a slot is handed out, which TaskSlot::PreemptClear records;
// a slot without it gets the flag cleared on the control stream first.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_TASKPOOL_H
#define BATON_LIB_RUNTIME_TASKPOOL_H

#include "baton/task.h"

#include <cuda.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

namespace baton::detail {

/// After the task and the done word: the generation of the launch whose
/// initialisation has run on the device (not part of the task ABI; the
/// variants never see it). A read-back that finds another generation was
/// taken before this launch's initialisation ran.
inline constexpr uint32_t SlotTagOffset = BATON_TASK_SIZE + 4;
/// Bytes of a slot that Runtime::readTask copies back: task, done, tag.
inline constexpr uint32_t SlotReadBytes = SlotTagOffset + 4;

struct TaskSlot {
  CUdeviceptr Task = 0; ///< baton_task, BATON_TASK_ALIGN-aligned
  CUdeviceptr Done = 0; ///< the slot's generation word
  baton_task *Mirror = nullptr; ///< pinned host copy for async transfers
  uint32_t Generation = 0;      ///< last generation handed out
  /// The device's `preempt` is zero and no write of the slot is pending on
  /// any stream: the last launch never left the flag raised and did not
  /// fail. Set by the launch that releases the slot.
  bool PreemptClear = true;

  /// The tag as last copied back into the mirror (Runtime::readTask).
  uint32_t mirroredTag() const {
    uint32_t Tag;
    std::memcpy(&Tag, reinterpret_cast<const char *>(Mirror) + SlotTagOffset,
                sizeof Tag);
    return Tag;
  }
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

  /// Pinned words holding 1 and 0: sources for PreemptSignal::Memcpy.
  const uint32_t *pinnedOne() const { return Constants + 1; }
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
