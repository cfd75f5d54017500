//===- GpuHarness.h - Launch manifest kernels and their Baton variants ----===//
//
// Shared by the GPU equivalence test and the GPU benchmarks: reads launch
// manifests (test/corpus/README.md describes the format), allocates and
// fills buffers deterministically, and launches a kernel as the original, as
// slices, or as PTB workers that can be preempted and resumed through the
// task's preempt flag, exactly as DESIGN.md specifies. Every wait has a
// deadline, so a hung kernel fails the run instead of hanging it.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_GPU_GPUHARNESS_H
#define BATON_TEST_GPU_GPUHARNESS_H

#include "CudaDriver.h"
#include "Manifest.h"
#include "baton/task.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace baton::gpu {

/// One launch: a manifest line, or a spinning kernel's (spinKernelSpec).
using LaunchSpec = test::ManifestLine;

/// Parses a manifest (test/manifest); throws std::runtime_error naming
/// file:line on error.
using test::readManifest;

/// The primary context of device 0, a low-priority work stream and a
/// high-priority control stream (for preempt writes).
class Gpu {
public:
  Gpu();
  int smCount() const { return SmCount; }
  std::string name() const { return Name; }
  CUstream work() const { return Work; }
  CUstream control() const { return Control; }
  CUmodule module(const std::string &Path);
  /// Waits for S, failing after Seconds instead of hanging.
  void waitFor(CUstream S, const std::string &What, double Seconds = 20);

private:
  int SmCount = 0;
  std::string Name;
  CUstream Work = nullptr, Control = nullptr;
  std::map<std::string, CUmodule> Modules;
};

/// One manifest kernel, its buffers and its variants.
class KernelRun {
public:
  KernelRun(Gpu &G, const std::string &ModulePath, const LaunchSpec &Spec);
  ~KernelRun();
  KernelRun(const KernelRun &) = delete;
  KernelRun &operator=(const KernelRun &) = delete;

  bool hasSlice() const { return Slice != nullptr; }
  bool hasPtb() const { return Ptb != nullptr; }

  /// Restores every buffer to its initial contents.
  void reset();
  /// Contents of every buffer (inputs too: a kernel may write them).
  std::vector<std::vector<uint8_t>> snapshot();

  void launchOriginal(CUstream S);
  /// All virtual blocks as back-to-back slice launches of SliceBlocks each.
  void runSlices(uint32_t SliceBlocks);
  /// Resets the task to cover the whole grid, then enqueues one slice
  /// launch of Blocks blocks (no wait).
  void writeTaskForSlices();
  void launchSliceKernel(CUstream S, uint32_t Blocks);

  struct PtbOutcome {
    unsigned Launches = 0;
    unsigned Pauses = 0;
    /// Launches that finished although some SMs were vacated during them:
    /// some workers left, and the others went on to the end.
    unsigned FinishedVacated = 0;
  };
  /// Runs all virtual blocks with Workers PTB workers per launch. If
  /// PauseAfter is set, it is called after each launch is enqueued and
  /// returns the delay (µs) after which the host raises preempt, or a
  /// negative number to let the launch run to the end; paused launches are
  /// resumed from the cursor until every block has run. Flags and
  /// ClaimChunk go to the task (baton/task.h). Watermark, if set, gives the
  /// value written to `preempt` for each launch (default BATON_PREEMPT_ALL:
  /// every worker stops; a smaller one vacates the SMs below it, and the
  /// launch may still finish). FirstShares: the first launch starts with
  /// the workers' first shares (task.h), which later launches clear; they
  /// may hold up to CoveringShareLimit blocks where that covers the grid
  /// (baton_first_share_limit).
  PtbOutcome runPtb(uint32_t Workers,
                    const std::function<double(unsigned)> &PauseAfter = {},
                    uint32_t Flags = 0, uint32_t ClaimChunk = 1,
                    const std::function<uint32_t(unsigned)> &Watermark = {},
                    bool FirstShares = false, uint32_t CoveringShareLimit = 0);
  /// Resets the task to the whole grid with the cursor at 0, with Flags
  /// and ClaimChunk; with FirstShareWorkers, the first shares of a launch
  /// of that many workers (up to CoveringShareLimit blocks where those
  /// cover the grid), and the cursor past them.
  void writeTaskForPtb(uint32_t Flags = 0, uint32_t ClaimChunk = 1,
                       uint32_t FirstShareWorkers = 0,
                       uint32_t CoveringShareLimit = 0);
  /// The task writeTaskForPtb writes, for a caller that keeps its own.
  baton_task ptbTask(uint32_t Flags = 0, uint32_t ClaimChunk = 1,
                     uint32_t FirstShareWorkers = 0,
                     uint32_t CoveringShareLimit = 0) const;
  /// Enqueues one PTB launch of Workers workers (no wait) with this run's
  /// task, or with OtherTask if set (BATON_TASK_ALIGN-aligned).
  void launchPtbKernel(CUstream S, uint32_t Workers,
                       CUdeviceptr OtherTask = 0);
  /// Most PTB workers resident at once on the whole GPU.
  uint32_t maxPtbWorkers();
  /// Blocks of the original kernel resident at once on the whole GPU.
  uint32_t maxOriginalBlocks();

  /// The device task as last read back.
  baton_task readTask();
  CUdeviceptr taskPointer() const { return Task; }
  const LaunchSpec &spec() const { return Spec; }

private:
  void writeTask(const baton_task &T);
  /// OtherTask, if set, is passed in place of this run's task.
  void launch(CUfunction F, CUstream S, uint32_t GridX, uint32_t GridY,
              uint32_t GridZ, bool WithTask, uint32_t ExtraShared = 0,
              CUdeviceptr OtherTask = 0);

  Gpu &G;
  LaunchSpec Spec;
  CUfunction Original = nullptr, Slice = nullptr, Ptb = nullptr;
  uint32_t residentBlocks(CUfunction F, uint32_t SharedMemBytes);
  std::vector<CUdeviceptr> Buffers;      ///< one per param (0 for scalars)
  std::vector<std::vector<uint8_t>> Init; ///< initial contents per buffer
  std::vector<std::vector<uint8_t>> Scalars; ///< per param (empty: buffers)
  CUdeviceptr Task = 0;
};

/// A launch of one of the spinning kernels of test/variants-gpu/kernels
/// (count_blocks, timed_blocks, ...): 128 threads per block, a 1-D grid of
/// Blocks, one in-out buffer of BufferCount elements of BufferType, then the
/// spin time in nanoseconds.
LaunchSpec spinKernelSpec(const std::string &Module, const std::string &Kernel,
                          uint32_t Blocks, const std::string &BufferType,
                          uint64_t BufferCount, uint32_t SpinNs,
                          const std::string &Where);

/// Busy-waits for Micros microseconds (sleeping would be far too coarse).
void spinMicros(double Micros);

} // namespace baton::gpu

#endif // BATON_TEST_GPU_GPUHARNESS_H
