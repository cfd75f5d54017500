; __syncthreads_count/and/or (barrier reductions) cannot be joined by threads
; that left their virtual block early: slice variant only.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @count_votes(ptr %p, i1 %vote) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %n = call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0, i1 %vote)
  %s = add i32 %n, %x
  store i32 %s, ptr %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32, i1)

; WARN: warning: kernel 'count_votes' gets no ptb variant: uses a reduction barrier (bar.red, from __syncthreads_count/and/or), which threads that left their virtual block early cannot join [barrier-reduction]
; CHECK-LABEL: define ptx_kernel void @count_votes(
; CHECK: define ptx_kernel void @count_votes__baton_slice(
; CHECK-NOT: @count_votes__baton_ptb
; CHECK: call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0, i1 %vote)
