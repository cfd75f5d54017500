; A barrier whose id is not a constant cannot be planned around: PTB
; refused, slice kept.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @dynamic_id(ptr %p, i32 %id) {
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 %id)
  ret void
}

declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

; WARN: warning: kernel 'dynamic_id' gets no ptb variant: uses a barrier whose id is not a constant below 16 [barrier-register-id]
; CHECK-LABEL: define ptx_kernel void @dynamic_id(
; CHECK: define ptx_kernel void @dynamic_id__baton_slice(
; CHECK-NOT: @dynamic_id__baton_ptb
