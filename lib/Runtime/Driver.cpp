//===- Driver.cpp - dlopen of libcuda and the entry-point table ----------===//
//
// Resolves the table declared in Driver.h. cuGetProcAddress is the one symbol
// taken with dlsym; it then hands out each function at the ABI version of our
// cuda.h (CUDA_VERSION), which is how the CUDA runtime itself binds the
// driver and avoids picking an older `_v1` symbol by accident.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "baton/Runtime.h"

#include <dlfcn.h>

#include <mutex>

using namespace baton;
using namespace baton::detail;

namespace {

struct LoadedDriver {
  DriverApi Api;
  std::string Failure; // empty when Api is complete
};

LoadedDriver load() {
  LoadedDriver D;
  void *Handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    const char *Why = dlerror();
    D.Failure = std::string("dlopen(\"libcuda.so.1\") failed: ") +
                (Why ? Why : "unknown reason");
    return D;
  }
  // The handle is never closed: the driver stays loaded for the process's
  // lifetime, as contexts and modules may outlive any one Runtime.
  auto *GetProc = reinterpret_cast<decltype(&::cuGetProcAddress)>(
      dlsym(Handle, "cuGetProcAddress_v2"));
  if (!GetProc) {
    D.Failure = "libcuda.so.1 has no cuGetProcAddress_v2 (driver older than "
                "CUDA 12.0)";
    return D;
  }
  std::string Missing;
#define BATON_DRIVER_RESOLVE(Name)                                             \
  {                                                                            \
    void *Fn = nullptr;                                                        \
    CUdriverProcAddressQueryResult Found;                                      \
    if (GetProc(#Name, &Fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT,         \
                &Found) != CUDA_SUCCESS ||                                     \
        Found != CU_GET_PROC_ADDRESS_SUCCESS || !Fn)                           \
      Missing += (Missing.empty() ? "" : ", ") + std::string(#Name);           \
    else                                                                       \
      D.Api.Name = reinterpret_cast<decltype(D.Api.Name)>(Fn);                 \
  }
  BATON_DRIVER_FUNCTIONS(BATON_DRIVER_RESOLVE)
#undef BATON_DRIVER_RESOLVE
  if (!Missing.empty())
    D.Failure = "the installed driver lacks " + Missing +
                " (Baton needs a CUDA 12.4 or newer driver)";
  return D;
}

const LoadedDriver &loaded() {
  static const LoadedDriver D = load();
  return D;
}

} // namespace

const DriverApi &baton::detail::driver() {
  const LoadedDriver &D = loaded();
  if (!D.Failure.empty())
    throw Error(ErrorKind::DriverUnavailable,
                "CUDA driver not available: " + D.Failure);
  return D.Api;
}

std::string baton::detail::describe(CUresult Result) {
  const LoadedDriver &D = loaded();
  const char *Name = nullptr;
  const char *Text = nullptr;
  if (D.Failure.empty()) {
    D.Api.cuGetErrorName(Result, &Name);
    D.Api.cuGetErrorString(Result, &Text);
  }
  std::string S = Name ? Name : "CUresult " + std::to_string(Result);
  if (Text)
    S += std::string(" (") + Text + ")";
  return S;
}

void baton::detail::check(CUresult Result, std::string_view Call,
                          std::string_view Kernel) {
  if (Result == CUDA_SUCCESS)
    return;
  std::string Message(Call);
  Message += " failed";
  if (!Kernel.empty())
    Message += std::string(" for kernel '") + std::string(Kernel) + "'";
  Message += ": " + describe(Result);
  throw Error(ErrorKind::Cuda, Message, Result);
}

Error::Error(ErrorKind Kind, const std::string &Message, CUresult Result)
    : std::runtime_error(Message), Kind(Kind), Result(Result) {}
