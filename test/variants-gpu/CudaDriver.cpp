//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
#include "CudaDriver.h"

#include <dlfcn.h>

namespace baton::gpu {

#define BATON_STR(x) #x
#define BATON_XSTR(x) BATON_STR(x)

bool CudaDriver::load(std::string &Why) {
  void *Handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    const char *E = dlerror();
    Why = std::string("cannot load libcuda.so.1: ") + (E ? E : "unknown");
    return false;
  }
#define BATON_LOAD(fn)                                                         \
  fn = reinterpret_cast<decltype(fn)>(dlsym(Handle, BATON_XSTR(fn)));         \
  if (!fn) {                                                                   \
    Why = "libcuda.so.1 lacks " BATON_XSTR(fn);                               \
    return false;                                                              \
  }
  BATON_CUDA_FUNCTIONS(BATON_LOAD)
#undef BATON_LOAD
  CUresult R = cuInit(0);
  if (R != CUDA_SUCCESS) {
    const char *Name = nullptr;
    cuGetErrorName(R, &Name);
    Why = std::string("cuInit failed: ") + (Name ? Name : "?");
    return false;
  }
  CUdevice Dev;
  if (cuDeviceGet(&Dev, 0) != CUDA_SUCCESS) {
    Why = "no CUDA device";
    return false;
  }
  return true;
}

CudaDriver &driver() {
  static CudaDriver D;
  return D;
}

void check(CUresult R, const std::string &What) {
  if (R == CUDA_SUCCESS)
    return;
  const char *Name = nullptr, *Text = nullptr;
  driver().cuGetErrorName(R, &Name);
  driver().cuGetErrorString(R, &Text);
  throw std::runtime_error(What + ": " + (Name ? Name : "?") + ": " +
                           (Text ? Text : "?"));
}

} // namespace baton::gpu
