//===- Driver.h - The CUDA driver, loaded at run time -----------*- C++ -*-===//
//
// Baton links no CUDA library: machines without a GPU (CI, build hosts) must
// still load libbaton, and a process that never touches a GPU must not fail
// at start-up for want of libcuda.so.1. The driver is opened with dlopen on
// first use and every entry point the runtime calls is resolved once, through
// cuGetProcAddress at the CUDA version of the headers we compiled against, so
// each pointer has exactly the ABI its cuda.h prototype declares.
//
// The table is the only place that names driver functions as strings; the
// rest of the runtime calls `driver().cuXxx(...)` and checks the result with
// `check()`, which turns a failure into a baton::Error that names the call,
// the driver's error string and the kernel involved.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_DRIVER_H
#define BATON_LIB_RUNTIME_DRIVER_H

#include <cuda.h>

#include <string>
#include <string_view>

namespace baton::detail {

// Every driver entry point the runtime (and its GPU test programs, which
// must also start without a driver) uses. cuda.h maps some names to
// versioned symbols (cuMemAlloc -> cuMemAlloc_v2); the member name follows
// that mapping, while the string handed to cuGetProcAddress is the base name,
// as the driver expects.
#define BATON_DRIVER_FUNCTIONS(X)                                              \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceGetName)                                                           \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuDevicePrimaryCtxReset)                                                   \
  X(cuDevicePrimaryCtxGetState)                                                \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxGetStreamPriorityRange)                                               \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleGetGlobal)                                                         \
  X(cuModuleGetFunctionCount)                                                  \
  X(cuModuleEnumerateFunctions)                                                \
  X(cuFuncGetName)                                                             \
  X(cuFuncGetModule)                                                           \
  X(cuFuncLoad)                                                                \
  X(cuFuncGetParamInfo)                                                        \
  X(cuFuncGetAttribute)                                                        \
  X(cuFuncSetAttribute)                                                        \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                               \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemHostAlloc)                                                            \
  X(cuMemFreeHost)                                                             \
  X(cuMemHostRegister)                                                         \
  X(cuMemHostUnregister)                                                       \
  X(cuMemHostGetDevicePointer)                                                 \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemsetD32Async)                                                          \
  X(cuPointerGetAttribute)                                                     \
  X(cuStreamCreateWithPriority)                                                \
  X(cuStreamGetPriority)                                                       \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuStreamWriteValue32)                                                      \
  X(cuStreamWaitValue32)                                                       \
  X(cuStreamIsCapturing)                                                       \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuThreadExchangeStreamCaptureMode)                                         \
  X(cuLaunchHostFunc)                                                          \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventQuery)                                                              \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuLaunchKernelEx)

struct DriverApi {
#define BATON_DRIVER_MEMBER(Name) decltype(&::Name) Name = nullptr;
  BATON_DRIVER_FUNCTIONS(BATON_DRIVER_MEMBER)
#undef BATON_DRIVER_MEMBER
};

/// The process-wide driver table. Loads libcuda.so.1 on first call; throws
/// Error(ErrorKind::DriverUnavailable, "CUDA driver not available: ...") on
/// this and every later call if it cannot be loaded or lacks an entry point.
const DriverApi &driver();

/// "CUDA_ERROR_X (description)" for a driver result, usable even when the
/// driver could not be loaded.
std::string describe(CUresult Result);

/// Throws Error(ErrorKind::Cuda) naming \p Call, the driver's message and,
/// when not empty, \p Kernel, unless \p Result is CUDA_SUCCESS.
void check(CUresult Result, std::string_view Call, std::string_view Kernel = {});

} // namespace baton::detail

#endif // BATON_LIB_RUNTIME_DRIVER_H
