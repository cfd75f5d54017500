//===- RealDriver.cpp - The functions the interposer stands in for --------===//
#include "RealDriver.h"

#include <dlfcn.h>

using namespace baton;

// Not instrumented, and without a guarded static: it may run before the
// sanitizer runtime and this library's constructors have.
__attribute__((no_sanitize("address", "undefined"))) void *
preload::glibcDlsym() {
  static void *Fn = nullptr;
  void *F = __atomic_load_n(&Fn, __ATOMIC_ACQUIRE);
  if (!F) {
    // dlsym moved from libdl to libc in glibc 2.34, with a new version.
    F = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!F)
      F = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    __atomic_store_n(&Fn, F, __ATOMIC_RELEASE);
  }
  return F;
}

void *preload::realDlsym(void *Handle, const char *Name) {
  auto Fn = reinterpret_cast<void *(*)(void *, const char *)>(glibcDlsym());
  return Fn ? Fn(Handle, Name) : nullptr;
}

void *preload::driverSymbol(const char *Name) {
  // Never closed: the driver stays loaded for the process's lifetime.
  static void *Driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return Driver ? realDlsym(Driver, Name) : nullptr;
}
