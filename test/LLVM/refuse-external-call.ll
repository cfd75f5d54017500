; A call to a function declared but not defined in the module cannot be
; checked: refused, also where the call's type differs from the
; declaration's, and for an indirect call where such a function's address is
; taken. vprintf, malloc, free, __assertfail and __nvvm_reflect are allowed
; (and the vtable stubs: indirect-call-vtable-stub.ll).
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas -c %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @calls_mystery(ptr %p) {
  %v = call i32 @mystery()
  store i32 %v, ptr %p
  ret void
}

define ptx_kernel void @prints(ptr %p) {
  %v = call i32 @vprintf(ptr %p, ptr null)
  ret void
}

define ptx_kernel void @calls_mismatched(ptr %p) {
  %v = call i32 @returns_ptr(ptr %p)
  store i32 %v, ptr %p
  ret void
}

define ptx_kernel void @reflects(ptr %p) {
  %v = call i32 @__nvvm_reflect(ptr @arch)
  store i32 %v, ptr %p
  ret void
}

define ptx_kernel void @calls_through_table(ptr %p) {
  %f = load ptr, ptr addrspace(1) @table
  call void %f(ptr %p)
  ret void
}

@table = addrspace(1) global ptr @elsewhere
@arch = private unnamed_addr constant [12 x i8] c"__CUDA_ARCH\00"

declare i32 @mystery()
declare i32 @vprintf(ptr, ptr)
declare ptr @returns_ptr(ptr)
declare i32 @__nvvm_reflect(ptr)
declare void @elsewhere(ptr)

; WARN: warning: kernel 'calls_mystery' gets no variants: calls 'mystery', which is declared but not defined in this module, so it cannot be checked [external-call]
; WARN: warning: kernel 'calls_mismatched' gets no variants: calls 'returns_ptr', which is declared but not defined in this module, so it cannot be checked [external-call]
; WARN: warning: kernel 'calls_through_table' gets no variants: makes an indirect call, and 'elsewhere', whose address is taken, is declared but not defined in this module, so it cannot be checked [external-call]
; WARN-NOT: prints
; WARN-NOT: reflects
; CHECK-LABEL: define ptx_kernel void @calls_mystery(
; CHECK-NOT: @calls_mystery__baton_slice
; CHECK-NOT: @calls_mystery__baton_ptb
; CHECK-LABEL: define ptx_kernel void @prints__baton_slice(
; CHECK-LABEL: define ptx_kernel void @prints__baton_ptb(
; CHECK-NOT: @calls_mismatched__baton_
; CHECK-LABEL: define ptx_kernel void @reflects__baton_slice(
; CHECK-NOT: @calls_through_table__baton_
