; Named barriers with a thread count, and arrive barriers, are left alone
; and reserve their id; the worker loop takes the lowest free id (here 1).
; Where threads may leave before a full-CTA barrier (@guarded, whose early
; return depends on %tid), the body's full-CTA barriers move onto the loop's
; barrier and join the drain; where they cannot (@producer_consumer, no
; branch at all), the body's barriers stay as they are and there is no
; drain.
; RUN: %opt -passes=baton-variants %s -S | FileCheck %s
; RUN: %opt -passes=baton-variants %s -o %t.bc
; RUN: %llc -mcpu=sm_90a %t.bc -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @producer_consumer(ptr %out) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 0, i32 128)
  call void @llvm.nvvm.barrier.cta.arrive.aligned.count(i32 0, i32 128)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 1)
  store i32 %x, ptr %out
  ret void
}

define ptx_kernel void @guarded(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %past = icmp uge i32 %t, %n
  br i1 %past, label %early, label %work

early:
  ret void

work:
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 0, i32 128)
  call void @llvm.nvvm.barrier.cta.arrive.aligned.count(i32 0, i32 128)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 1)
  store i32 %t, ptr %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.count(i32, i32)
declare void @llvm.nvvm.barrier.cta.arrive.aligned.count(i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

; CHECK-LABEL: define ptx_kernel void @producer_consumer__baton_ptb(
; CHECK: baton.first:
; CHECK: call void @llvm.nvvm.barrier.cta.sync.all(i32 1)
; CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 0, i32 128)
; CHECK-NEXT: call void @llvm.nvvm.barrier.cta.arrive.aligned.count(i32 0, i32 128)
; CHECK-NEXT: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 1)
; CHECK-NOT: red.and
; CHECK-NOT: baton.drain:
; CHECK-LABEL: define ptx_kernel void @guarded__baton_ptb(
; CHECK: baton.first:
; CHECK: call void @llvm.nvvm.barrier.cta.sync.all(i32 1)
; CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 0, i32 128)
; CHECK-NEXT: call void @llvm.nvvm.barrier.cta.arrive.aligned.count(i32 0, i32 128)
; CHECK-NEXT: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 1, i1 false)
; CHECK: baton.drain:
; CHECK-NEXT: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 1, i1 true)
