; A call to a function declared but not defined in the module cannot be
; checked: refused. vprintf, malloc, free and __assertfail are allowed.
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

declare i32 @mystery()
declare i32 @vprintf(ptr, ptr)

; WARN: warning: kernel 'calls_mystery' gets no variants: calls 'mystery', which is declared but not defined in this module, so it cannot be checked [external-call]
; WARN-NOT: prints
; CHECK-LABEL: define ptx_kernel void @calls_mystery(
; CHECK-NOT: @calls_mystery__baton_slice
; CHECK-NOT: @calls_mystery__baton_ptb
; CHECK-LABEL: define ptx_kernel void @prints__baton_slice(
; CHECK-LABEL: define ptx_kernel void @prints__baton_ptb(
