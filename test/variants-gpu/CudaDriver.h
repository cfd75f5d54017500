//===- CudaDriver.h - The CUDA driver API, loaded at run time -------------===//
//
// GPU tests and benchmarks load libcuda.so.1 with dlopen instead of linking
// it, so they build everywhere and, on a machine without a GPU or driver,
// report "SKIPPED" instead of failing to start.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_GPU_CUDADRIVER_H
#define BATON_TEST_GPU_CUDADRIVER_H

#include <cuda.h>

#include <stdexcept>
#include <string>

namespace baton::gpu {

// cuda.h maps names such as cuMemAlloc to their current ABI (cuMemAlloc_v2)
// with macros; expanding before stringizing looks up that same symbol.
#define BATON_CUDA_FUNCTIONS(X)                                                \
  X(cuInit) X(cuDeviceGet) X(cuDeviceGetAttribute) X(cuDeviceGetName)          \
  X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxSynchronize)           \
  X(cuModuleLoadData) X(cuModuleGetFunction) X(cuModuleUnload)                 \
  X(cuFuncSetAttribute) X(cuFuncGetAttribute)                                  \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                               \
  X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH)                   \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemHostAlloc) X(cuMemFreeHost) \
  X(cuMemHostGetDevicePointer) X(cuMemsetD32)                                 \
  X(cuLaunchKernel) X(cuStreamCreateWithPriority) X(cuStreamDestroy)           \
  X(cuStreamSynchronize) X(cuStreamQuery) X(cuStreamWriteValue32)              \
  X(cuStreamWaitValue32)                                                       \
  X(cuCtxGetStreamPriorityRange) X(cuEventCreate) X(cuEventRecord)             \
  X(cuEventSynchronize) X(cuEventElapsedTime) X(cuEventDestroy)                \
  X(cuGetErrorName) X(cuGetErrorString)

struct CudaDriver {
#define BATON_DECLARE(fn) decltype(&::fn) fn = nullptr;
  BATON_CUDA_FUNCTIONS(BATON_DECLARE)
#undef BATON_DECLARE

  /// Loads the driver; on failure returns false and says why in Why.
  bool load(std::string &Why);
};

/// The process-wide driver table (load() must have succeeded).
CudaDriver &driver();

/// Throws std::runtime_error "<what>: <error name>: <error string>".
void check(CUresult R, const std::string &What);

} // namespace baton::gpu

#endif // BATON_TEST_GPU_CUDADRIVER_H
