; All 16 barrier ids are taken by barriers with thread counts: the worker
; loop has none left. PTB refused, slice kept.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @all_ids(ptr %p) {
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 0, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 1, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 2, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 3, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 4, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 5, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 6, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 7, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 8, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 9, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 10, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 11, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 12, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 13, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 14, i32 64)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 15, i32 64)
  ret void
}

declare void @llvm.nvvm.barrier.cta.sync.aligned.count(i32, i32)

; WARN: warning: kernel 'all_ids' gets no ptb variant: uses all 16 CTA barriers with thread counts; the worker loop needs one of its own [no-free-barrier]
; CHECK-LABEL: define ptx_kernel void @all_ids(
; CHECK: define ptx_kernel void @all_ids__baton_slice(
; CHECK-NOT: @all_ids__baton_ptb
