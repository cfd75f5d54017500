//===- RuntimeKernels.h - Device code owned by the runtime -----*- C++ -*-===//
//
// The runtime's own kernels, as PTX text loaded with cuModuleLoadData when a
// Runtime is created (no nvcc at build time, no fatbin to ship).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_RUNTIMEKERNELS_H
#define BATON_LIB_RUNTIME_RUNTIMEKERNELS_H

#include <cstddef>
#include <cstdint>

namespace baton::detail {

/// What baton_finalize leaves, after each PTB run, in pinned host memory
/// mapped for the device: the task's cursor and worker statistics once every
/// worker has left. The host reads it when the run's event has completed
/// instead of copying the task back, a device round trip that would
/// otherwise sit between the last worker out and every pause being seen.
struct RunReport {
  uint32_t Next;
  uint32_t WorkersExited;
  uint32_t WorkersPreempted;
};
static_assert(offsetof(RunReport, Next) == 0 &&
                  offsetof(RunReport, WorkersExited) == 4 &&
                  offsetof(RunReport, WorkersPreempted) == 8,
              "FinalizePtx writes these offsets");

/// PTX of `baton_finalize(task, done, generation, report)`: one thread;
/// copies the task's cursor and statistics to `report` (a RunReport), and if
/// the cursor reached `end`, publishes `generation` to `done` and resets the
/// cursor (to `begin`, or past the first shares, task.h) and the statistics
/// for the slot's next launch; if not, clears `first_share`. Issued
/// after every PTB run on the stream of that run (the user's stream for a
/// first run, the launch's private stream after a pause), it lets the
/// user's stream wait on `done` (cuStreamWaitValue32) instead of on the
/// host.
extern const char FinalizePtx[];
/// The same kernel for GPUs of compute capability 9.0 and up, to be issued
/// as a programmatic dependent launch of the run (the launch attribute
/// PROGRAMMATIC_STREAM_SERIALIZATION): the driver may start it while the
/// run's last workers leave, and its first instruction waits for the run to
/// complete and its writes to be visible. It saves about 1.3 us of device
/// time per run over a plain launch (docs/benchmarks.md, twentieth session).
extern const char FinalizeDependentPtx[];
inline constexpr const char *FinalizeKernelName = "baton_finalize";

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_RUNTIMEKERNELS_H
