//===- DriverEntry.h - Driver entry points for baton._core ------*- C++ -*-===//
//
// baton._core makes a few driver calls of its own (the runtime's table is
// private to it). Entry points are resolved for this header's CUDA version,
// as the runtime resolves its own, from the libcuda.so.1 that the runtime
// opened (or opened here if it has not).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PYTHON_DRIVERENTRY_H
#define BATON_PYTHON_DRIVERENTRY_H

#include <cuda.h>

#include <dlfcn.h>
#include <stdexcept>
#include <string>

namespace baton::python {

/// cuGetProcAddress of libcuda.so.1, looked up once; null if the driver
/// cannot be loaded.
inline decltype(&::cuGetProcAddress) driverGetProcAddress() {
  static auto *GetProc = []() -> decltype(&::cuGetProcAddress) {
    void *Lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!Lib)
      Lib = dlopen("libcuda.so.1", RTLD_NOW);
    return Lib ? reinterpret_cast<decltype(&::cuGetProcAddress)>(
                     dlsym(Lib, "cuGetProcAddress_v2"))
               : nullptr;
  }();
  return GetProc;
}

/// Sets \p Out to the driver's entry point \p Name; throws
/// std::runtime_error if the driver cannot be loaded or lacks it.
template <class Fn> void resolveDriverEntry(const char *Name, Fn &Out) {
  auto *GetProc = driverGetProcAddress();
  if (!GetProc)
    throw std::runtime_error("baton: libcuda.so.1 cannot be used");
  void *P = nullptr;
  CUdriverProcAddressQueryResult Found;
  if (GetProc(Name, &P, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &Found) !=
          CUDA_SUCCESS ||
      Found != CU_GET_PROC_ADDRESS_SUCCESS || !P)
    throw std::runtime_error(std::string("baton: libcuda.so.1 lacks ") + Name);
  Out = reinterpret_cast<Fn>(P);
}

} // namespace baton::python

#endif // BATON_PYTHON_DRIVERENTRY_H
