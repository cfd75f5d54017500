//===- RuntimeKernels.h - Device code owned by the runtime -----*- C++ -*-===//
//
// The runtime's own kernels, as PTX text loaded with cuModuleLoadData when a
// Runtime is created (no nvcc at build time, no fatbin to ship).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_RUNTIMEKERNELS_H
#define BATON_LIB_RUNTIME_RUNTIMEKERNELS_H

namespace baton::detail {

/// PTX of `baton_finalize(task, done, generation)`: one thread; if the task's
/// cursor reached `end`, publishes `generation` to `done`. Issued after every
/// PTB launch on the launch's private stream, it lets the user's stream wait
/// on `done` (cuStreamWaitValue32) instead of on the host.
extern const char FinalizePtx[];
inline constexpr const char *FinalizeKernelName = "baton_finalize";

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_RUNTIMEKERNELS_H
