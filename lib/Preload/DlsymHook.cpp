//===- DlsymHook.cpp - Driver lookups by dlsym get the hooks --------------===//
//
// The CUDA runtime, linked statically into nearly every program nvcc builds
// (and the same in libcudart.so), calls no driver function by name: it
// opens libcuda.so.1, takes cuGetProcAddress_v2 from it with
// dlsym(handle, ...), and gets every other entry point through that. A
// dlsym on a library's handle searches that library and its dependencies,
// never a preloaded one, so exporting cuGetProcAddress_v2 is not enough: the
// interposer replaces dlsym itself. A lookup on libcuda's handle of a
// hooked name gets the hook (DriverHooks.h); every other lookup is glibc's.
//
// "Glibc's" must hold exactly, RTLD_NEXT included, whose meaning depends on
// the calling object, which glibc finds from its return address. So dlsym is
// a few instructions that ask batonDlsymHook and, when it declines, jump to
// glibc's dlsym with the caller's return address still on the stack, as if
// the caller had called glibc directly. Lookups made by this library (the
// runtime opening the driver) always get the real functions.
//
// batonDlsymHook may run before the program's (and this library's) static
// constructors, from a sanitizer runtime's start-up, so it is not
// instrumented and uses nothing that needs them.
//
//===----------------------------------------------------------------------===//
#include "DriverHooks.h"
#include "RealDriver.h"

#include <dlfcn.h>

#if !defined(__x86_64__)
#error "the dlsym trampoline is written for x86-64 only"
#endif

using namespace baton::preload;

extern "C" {

/// glibc's dlsym, where the trampoline jumps when the hook declines. Set
/// by batonDlsymHook before it returns.
[[gnu::visibility("hidden")]] void *batonGlibcDlsym = nullptr;

/// The hook that replaces dlsym(Handle, Name) for a caller at return
/// address \p Caller, or null for glibc's answer.
[[gnu::visibility("hidden"), gnu::used]] __attribute__((
    no_sanitize("address", "undefined"))) void *
batonDlsymHook(void *Handle, const char *Name, void *Caller) {
  void *Glibc = glibcDlsym();
  __atomic_store_n(&batonGlibcDlsym, Glibc, __ATOMIC_RELAXED);
  if (!Glibc || !Name || Handle == RTLD_NEXT || Handle == RTLD_DEFAULT ||
      !isHookedExport(Name))
    return nullptr;
  // Lookups from this library: the runtime binds the real driver.
  Dl_info Self, From;
  if (dladdr(reinterpret_cast<void *>(&batonDlsymHook), &Self) &&
      dladdr(Caller, &From) && Self.dli_fbase == From.dli_fbase)
    return nullptr;
  // Only lookups on libcuda's handle: another library that happens to
  // export the name is none of our business.
  void *Cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!Cuda)
    return nullptr;
  dlclose(Cuda);
  if (Handle != Cuda)
    return nullptr;
  void *Real = realDlsym(Handle, Name);
  return Real ? hookForExport(Name, Real) : nullptr;
}

} // extern "C"

// dlsym(handle, name): the arguments stay in %rdi and %rsi for glibc; the
// return address at entry, 16(%rsp) after the two pushes, is the caller.
asm(R"(
  .text
  .globl dlsym
  .type dlsym, @function
dlsym:
  .cfi_startproc
  pushq %rdi
  .cfi_adjust_cfa_offset 8
  pushq %rsi
  .cfi_adjust_cfa_offset 8
  movq 16(%rsp), %rdx
  subq $8, %rsp
  .cfi_adjust_cfa_offset 8
  call batonDlsymHook@PLT
  addq $8, %rsp
  .cfi_adjust_cfa_offset -8
  popq %rsi
  .cfi_adjust_cfa_offset -8
  popq %rdi
  .cfi_adjust_cfa_offset -8
  testq %rax, %rax
  jz 1f
  ret
1:
  jmpq *batonGlibcDlsym(%rip)
  .cfi_endproc
  .size dlsym, .-dlsym
)");
