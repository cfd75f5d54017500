; A CTA barrier inside a device function cannot join the drain protocol:
; PTB refused, slice kept.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @sync_helper() {
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @calls_sync(ptr %p) {
  call void @sync_helper()
  ret void
}

declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

; WARN: warning: kernel 'calls_sync' gets no ptb variant (in function 'sync_helper'): has a CTA barrier inside a device function; PTB workers redirect barriers in the kernel body only [barrier-in-callee]
; CHECK-LABEL: define ptx_kernel void @calls_sync(
; CHECK: define ptx_kernel void @calls_sync__baton_slice(
; CHECK-NOT: @calls_sync__baton_ptb
