//===- TaskPool.cpp - Device memory for baton_task records ----------------===//

#include "TaskPool.h"

#include "Driver.h"

#include <cstring>

using namespace baton::detail;

// One slot: the task, then the done word. The task's cursor has a 128-byte
// line of its own (task.h); slots are a multiple of 128 bytes apart, so no
// line holds two cursors. The host slab has the same layout: the mirror,
// then the run report where the device slab has the done word.
static constexpr size_t SlotBytes = 256;
static_assert(SlotBytes % BATON_TASK_ALIGN == 0);
static constexpr size_t SlotsPerSlab = 256;
static_assert(BATON_TASK_SIZE + sizeof(uint32_t) <= SlotBytes);
static_assert(BATON_TASK_SIZE + sizeof(RunReport) <= SlotBytes);

size_t TaskShapeHash::operator()(const TaskShape &S) const noexcept {
  size_t H = 0;
  for (uint32_t Field :
       {S.GridX, S.GridY, S.GridZ, S.End, S.Flags, S.ClaimChunk,
        S.FirstShare, S.FirstClaimed})
    H = H * 0x9E3779B97F4A7C15ull + Field;
  return H;
}

void FreeTaskSlots::put(TaskSlot *Slot, std::optional<TaskShape> Fresh) {
  if (Fresh)
    FreshByShape[*Fresh].push_back(Slot);
  else
    Stale.push_back(Slot);
}

TaskSlot *FreeTaskSlots::take(const std::optional<TaskShape> &Wanted,
                              bool &Fresh) {
  Fresh = false;
  auto Pop = [&](auto It) {
    TaskSlot *Slot = It->second.back();
    It->second.pop_back();
    if (It->second.empty())
      FreshByShape.erase(It);
    return Slot;
  };
  if (Wanted)
    if (auto It = FreshByShape.find(*Wanted); It != FreshByShape.end()) {
      Fresh = true;
      return Pop(It);
    }
  if (!Stale.empty()) {
    TaskSlot *Slot = Stale.back();
    Stale.pop_back();
    return Slot;
  }
  // Every free slot is fresh for another shape: its task is rewritten.
  if (!FreshByShape.empty())
    return Pop(FreshByShape.begin());
  return nullptr;
}

void TaskPool::releaseAll() noexcept {
  std::lock_guard Lock(Mutex);
  if (Slabs.empty() && !Constants)
    return;
  // Errors are ignored: this runs while the runtime is being torn down, and
  // a dead context (after a kernel fault) still has to release what it can.
  const DriverApi &D = driver();
  for (Slab &S : Slabs) {
    D.cuMemFree(S.Device);
    D.cuMemFreeHost(S.Host);
  }
  Slabs.clear();
  Free = FreeTaskSlots();
  if (Constants)
    D.cuMemFreeHost(Constants);
  Constants = nullptr;
}

TaskSlot *TaskPool::acquire(CUstream Stream,
                            const std::optional<TaskShape> &Shape,
                            bool &Fresh) {
  std::lock_guard Lock(Mutex);
  TaskSlot *Slot = Free.take(Shape, Fresh);
  if (!Slot) {
    grow(Stream);
    Slot = Free.take(Shape, Fresh);
  }
  ++Slot->Generation;
  return Slot;
}

void TaskPool::release(TaskSlot *Slot, std::optional<TaskShape> Fresh) {
  std::lock_guard Lock(Mutex);
  Free.put(Slot, Fresh);
}

void TaskPool::grow(CUstream Stream) {
  const DriverApi &D = driver();
  if (!Constants) {
    void *Words = nullptr;
    check(D.cuMemHostAlloc(&Words, 2 * sizeof(uint32_t), 0), "cuMemHostAlloc");
    Constants = static_cast<uint32_t *>(Words);
    Constants[0] = 0;
    Constants[1] = BATON_PREEMPT_ALL;
  }
  Slab S;
  const size_t Bytes = SlotBytes * SlotsPerSlab;
  check(D.cuMemAlloc(&S.Device, Bytes), "cuMemAlloc (task slots)");
  if (CUresult R = D.cuMemHostAlloc(&S.Host, Bytes, CU_MEMHOSTALLOC_DEVICEMAP);
      R != CUDA_SUCCESS) {
    D.cuMemFree(S.Device);
    check(R, "cuMemHostAlloc (task mirrors)");
  }
  CUdeviceptr HostOnDevice = 0;
  if (CUresult R = D.cuMemHostGetDevicePointer(&HostOnDevice, S.Host, 0);
      R != CUDA_SUCCESS) {
    D.cuMemFree(S.Device);
    D.cuMemFreeHost(S.Host);
    check(R, "cuMemHostGetDevicePointer (run reports)");
  }
  // Generation words start at zero; the copy completes before any slot is
  // handed out, so no launch can observe the uninitialised memory.
  std::memset(S.Host, 0, Bytes);
  CUresult R = D.cuMemcpyHtoDAsync(S.Device, S.Host, Bytes, Stream);
  if (R == CUDA_SUCCESS)
    R = D.cuStreamSynchronize(Stream);
  if (R != CUDA_SUCCESS) {
    D.cuMemFree(S.Device);
    D.cuMemFreeHost(S.Host);
    check(R, "cuMemcpyHtoDAsync (task slots)");
  }
  S.Slots.resize(SlotsPerSlab);
  for (size_t I = 0; I < SlotsPerSlab; ++I) {
    TaskSlot &T = S.Slots[I];
    T.Task = S.Device + I * SlotBytes;
    T.Done = T.Task + BATON_TASK_SIZE;
    char *Host = static_cast<char *>(S.Host) + I * SlotBytes;
    T.Mirror = reinterpret_cast<baton_task *>(Host);
    T.Report = reinterpret_cast<RunReport *>(Host + BATON_TASK_SIZE);
    T.ReportOnDevice = HostOnDevice + I * SlotBytes + BATON_TASK_SIZE;
  }
  Slabs.push_back(std::move(S));
  for (TaskSlot &T : Slabs.back().Slots)
    Free.put(&T, std::nullopt);
}
