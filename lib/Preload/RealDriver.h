//===- RealDriver.h - The functions the interposer stands in for -*- C++ -*-===//
//
// The interposer exports dlsym and some of the driver's own entry points, so
// it must reach the real ones without finding itself: glibc's dlsym through
// dlvsym, and the driver's functions through dlsym on libcuda.so.1's own
// handle (which searches libcuda and its dependencies, never a preloaded
// library).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_PRELOAD_REALDRIVER_H
#define BATON_LIB_PRELOAD_REALDRIVER_H

namespace baton::preload {

/// glibc's dlsym function, or null. Safe to call before any constructor ran
/// (a sanitizer's runtime looks up functions with dlsym while it starts).
void *glibcDlsym();

/// glibc's dlsym(Handle, Name).
void *realDlsym(void *Handle, const char *Name);

/// libcuda.so.1's export \p Name, or null (no driver, or no such symbol).
void *driverSymbol(const char *Name);

} // namespace baton::preload

#endif // BATON_LIB_PRELOAD_REALDRIVER_H
