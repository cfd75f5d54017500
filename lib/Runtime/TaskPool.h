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
// A slot whose last launch was a PTB launch that completed without its flag
// ever being written is handed back fresh: the finalize kernel put the
// cursor back (to zero, or past the first shares) and the statistics to
// zero, and the grid, `end`, flags, claim size and first shares are still
// those of that launch. The next launch of the same
// shape (a training loop launches the same kernels every step) takes such a
// slot and issues no task copy, so its kernel waits for nothing on the
// control stream.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_TASKPOOL_H
#define BATON_LIB_RUNTIME_TASKPOOL_H

#include "RuntimeKernels.h"

#include "baton/task.h"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace baton::detail {

/// The fields of a PTB launch's task that the launch sets and no run
/// changes; with the cursor, `begin`, `preempt` and the statistics at zero
/// they make the whole task.
struct TaskShape {
  uint32_t GridX = 0, GridY = 0, GridZ = 0;
  uint32_t End = 0;
  uint32_t Flags = 0;
  uint32_t ClaimChunk = 0;
  uint32_t FirstShare = 0, FirstClaimed = 0;
  bool operator==(const TaskShape &) const = default;
};

struct TaskShapeHash {
  size_t operator()(const TaskShape &S) const noexcept;
};

struct TaskSlot {
  CUdeviceptr Task = 0; ///< baton_task, BATON_TASK_ALIGN-aligned
  CUdeviceptr Done = 0; ///< the slot's generation word
  baton_task *Mirror = nullptr; ///< pinned host copy for async transfers
  RunReport *Report = nullptr;  ///< pinned, written by the finalize kernel
  CUdeviceptr ReportOnDevice = 0; ///< Report's address for the device
  uint32_t Generation = 0;      ///< last generation handed out
};

/// The free slots of a pool, each with what its device task holds: a fresh
/// task of some shape, or anything (a slot that must be initialised).
class FreeTaskSlots {
public:
  /// Makes \p Slot free; \p Fresh is the shape of the fresh task it holds,
  /// if it holds one.
  void put(TaskSlot *Slot, std::optional<TaskShape> Fresh);
  /// A free slot, preferring one fresh for \p Wanted, then one holding
  /// nothing of use, then any; null if none is free. \p Fresh tells whether
  /// the slot's task is ready for \p Wanted as it is.
  TaskSlot *take(const std::optional<TaskShape> &Wanted, bool &Fresh);

private:
  std::vector<TaskSlot *> Stale;
  std::unordered_map<TaskShape, std::vector<TaskSlot *>, TaskShapeHash>
      FreshByShape; ///< no empty lists
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
  /// Prefers a slot whose task is fresh for \p Shape (see above); \p Fresh
  /// says whether it is, in which case the caller must not write it.
  TaskSlot *acquire(CUstream Stream, const std::optional<TaskShape> &Shape,
                    bool &Fresh);
  /// Gives \p Slot back. \p Fresh: the shape of the fresh task it holds, only
  /// once the finalize kernel that reset it has completed and nothing wrote
  /// the task after that.
  void release(TaskSlot *Slot, std::optional<TaskShape> Fresh);

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
  FreeTaskSlots Free;
  uint32_t *Constants = nullptr;
};

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_TASKPOOL_H
