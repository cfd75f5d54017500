//===- DriverHooks.h - The driver entry points the interposer replaces -*- C++ -*-===//
//
// libbaton_preload.so exports its own cuGetProcAddress (both ABIs),
// cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and
// cuGraphLaunch, each also in its _ptsz form (per-thread default stream),
// and the module loads (cuModuleLoad, cuModuleLoadData, cuModuleLoadDataEx,
// cuModuleLoadFatBinary, cuLibraryLoadData, cuLibraryLoadFromFile), which
// it makes with best-effort work held back (Interposer::holdForModuleLoad).
// A program reaches them three ways, and each way must end in them:
//
//  * by linking libcuda.so.1 and calling the functions: the preloaded
//    library's exports come first in the symbol search;
//  * by cuGetProcAddress (the CUDA runtime gets every driver function this
//    way): the interposer's cuGetProcAddress returns its hooks for the
//    launch functions and for cuGetProcAddress itself;
//  * by dlsym on libcuda's handle (how the runtime finds cuGetProcAddress):
//    see DlsymHook.cpp.
//
// Each hook calls the function it stands in for: the one the first lookup
// that produced the hook found, or libcuda's export when the hook was
// reached by linking.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_PRELOAD_DRIVERHOOKS_H
#define BATON_LIB_PRELOAD_DRIVERHOOKS_H

namespace baton::preload {

/// True if \p Symbol is one of libcuda's exports the interposer hooks.
bool isHookedExport(const char *Symbol);

/// The hook for libcuda's export \p Symbol, whose function is \p Real; null
/// if \p Symbol is not hooked.
void *hookForExport(const char *Symbol, void *Real);

} // namespace baton::preload

#endif // BATON_LIB_PRELOAD_DRIVERHOOKS_H
