; A variant name that the module already has is a name-collision refusal,
; as is the name of a PTB variant's ABI marker (task.h); kernels that are
; already variants are not transformed again.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr %p) {
  ret void
}

define ptx_kernel void @k__baton_ptb(ptr %p, ptr addrspace(1) %t) {
  ret void
}

@m__baton_ptb__abi6 = addrspace(1) global i32 0

define ptx_kernel void @m(ptr %p) {
  ret void
}

; WARN: warning: kernel 'k' gets no variants: the module already defines 'k__baton_ptb' [name-collision]
; WARN: warning: kernel 'm' gets no variants: the module already defines 'm__baton_ptb__abi6' [name-collision]
; WARN-NOT: warning
; CHECK-LABEL: define ptx_kernel void @k(
; CHECK-NOT: @k__baton_slice
; CHECK: define ptx_kernel void @k__baton_ptb(ptr %p, ptr addrspace(1) %t)
; CHECK: define ptx_kernel void @m(
; CHECK-NOT: define
