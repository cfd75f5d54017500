; The host half of the plugin: launches of this module's kernels (the
; <<<...>>> stubs and direct cudaLaunchKernel calls naming a kernel) call the
; Baton shim instead of cudaLaunchKernel, with the same arguments; launches
; of kernels defined elsewhere and kernels annotated baton_skip are left alone.
; RUN: %opt -passes=baton-route-launches -S %s | FileCheck %s
; RUN: %opt -passes=baton-route-launches -baton-route-skip='^_Z4axpyPf$' -S %s \
; RUN:   | FileCheck --check-prefix=SKIP %s
; RUN: %opt -passes=baton-route-launches -baton-route-only='scale' -S %s \
; RUN:   | FileCheck --check-prefix=ONLY %s
; RUN: not %opt -passes=baton-route-launches -baton-route-skip='(' -S %s \
; RUN:   -o /dev/null 2>&1 | FileCheck --check-prefix=BADREGEX %s
; With <lazy> (clang: -mllvm -baton-lazy) the module also gets one
; constructor that registers this object with the shim, however often the
; pass runs; without it, none.
; RUN: %opt -passes='baton-route-launches<lazy>,baton-route-launches<lazy>' \
; RUN:   -S %s | FileCheck --check-prefix=LAZY %s
; RUN: %opt -passes=baton-route-launches -S %s | FileCheck --check-prefix=EAGER %s

; LAZY: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @baton.lazy_variants, ptr null }]
; LAZY-LABEL: define internal void @baton.lazy_variants() {
; LAZY-NEXT: call void @baton_cuda_lazy_variants(ptr @baton.lazy_variants)
; LAZY-NEXT: ret void
; EAGER-NOT: lazy_variants

target triple = "x86_64-pc-linux-gnu"

@axpy.name = private constant [10 x i8] c"_Z4axpyPf\00"
@scale.name = private constant [11 x i8] c"_Z5scalePf\00"
@skipped.name = private constant [13 x i8] c"_Z7skippedPf\00"
@.str = private constant [11 x i8] c"baton_skip\00", section "llvm.metadata"
@.file = private constant [5 x i8] c"a.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @stub_skipped, ptr @.str, ptr @.file, i32 1, ptr null }], section "llvm.metadata"

declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)
declare i32 @cudaLaunchKernel_ptsz(ptr, i64, i32, i64, i32, ptr, i64, ptr)
declare i32 @__cudaRegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr)
declare void @stub_elsewhere(ptr)

; CHECK-LABEL: define void @stub_axpy(
; CHECK: call i32 @baton_cudaLaunchKernel(ptr @stub_axpy, i64 %g, i32 1, i64 %b, i32 1, ptr %args, i64 0, ptr %s)
; SKIP-LABEL: define void @stub_axpy(
; SKIP: call i32 @cudaLaunchKernel(ptr @stub_axpy,
; ONLY-LABEL: define void @stub_axpy(
; ONLY: call i32 @cudaLaunchKernel(ptr @stub_axpy,
define void @stub_axpy(ptr %args, i64 %g, i64 %b, ptr %s) {
  %r = call i32 @cudaLaunchKernel(ptr @stub_axpy, i64 %g, i32 1, i64 %b, i32 1, ptr %args, i64 0, ptr %s)
  ret void
}

; A build with a per-thread default stream calls the _ptsz entry point.
; CHECK-LABEL: define void @stub_scale(
; CHECK: call i32 @baton_cudaLaunchKernel_ptsz(ptr @stub_scale,
; SKIP-LABEL: define void @stub_scale(
; SKIP: call i32 @baton_cudaLaunchKernel_ptsz(ptr @stub_scale,
; ONLY-LABEL: define void @stub_scale(
; ONLY: call i32 @baton_cudaLaunchKernel_ptsz(ptr @stub_scale,
define void @stub_scale(ptr %args, i64 %g, i64 %b, ptr %s) {
  %r = call i32 @cudaLaunchKernel_ptsz(ptr @stub_scale, i64 %g, i32 1, i64 %b, i32 1, ptr %args, i64 0, ptr %s)
  ret void
}

; CHECK-LABEL: define void @stub_skipped(
; CHECK: call i32 @cudaLaunchKernel(ptr @stub_skipped,
define void @stub_skipped(ptr %args, i64 %g, i64 %b, ptr %s) {
  %r = call i32 @cudaLaunchKernel(ptr @stub_skipped, i64 %g, i32 1, i64 %b, i32 1, ptr %args, i64 0, ptr %s)
  ret void
}

; A direct launch naming a kernel of this module is routed; one naming a
; kernel defined elsewhere is not (its module may not have variants).
; CHECK-LABEL: define void @host_code(
; CHECK: call i32 @baton_cudaLaunchKernel(ptr @stub_axpy,
; CHECK: call i32 @cudaLaunchKernel(ptr @stub_elsewhere,
; SKIP-LABEL: define void @host_code(
; SKIP: call i32 @cudaLaunchKernel(ptr @stub_axpy,
define void @host_code(ptr %args, ptr %s) {
  %a = call i32 @cudaLaunchKernel(ptr @stub_axpy, i64 4294967297, i32 1, i64 4294967297, i32 1, ptr %args, i64 0, ptr %s)
  %b = call i32 @cudaLaunchKernel(ptr @stub_elsewhere, i64 4294967297, i32 1, i64 4294967297, i32 1, ptr %args, i64 0, ptr %s)
  ret void
}

define internal void @register(ptr %handle) {
  %1 = call i32 @__cudaRegisterFunction(ptr %handle, ptr @stub_axpy, ptr @axpy.name, ptr @axpy.name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)
  %2 = call i32 @__cudaRegisterFunction(ptr %handle, ptr @stub_scale, ptr @scale.name, ptr @scale.name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)
  %3 = call i32 @__cudaRegisterFunction(ptr %handle, ptr @stub_skipped, ptr @skipped.name, ptr @skipped.name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)
  ret void
}

; CHECK: declare i32 @baton_cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)
; BADREGEX: error: -baton-route-skip='(' is not a valid regular expression
