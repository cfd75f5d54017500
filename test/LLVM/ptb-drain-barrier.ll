; A barrier after a divergent exit: threads that returned early must keep
; arriving at the body's full-CTA barriers. The PTB variant turns each such
; barrier into barrier.red.and(D, false) and enters barrier D at the end of
; the block as a drain loop of barrier.red.and(D, true) (non-aligned forms).
; The slice variant keeps the original barrier.
; RUN: %opt -passes=baton-variants %s -S | FileCheck %s
; RUN: %opt -passes=baton-variants %s -o %t.bc
; RUN: %llc -mcpu=sm_90a %t.bc -o %t.ptx && %ptxas %t.ptx -o /dev/null
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@partial = internal addrspace(3) global [256 x i32] undef, align 4

define ptx_kernel void @guarded_sum(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %g = mul i32 %b, 256
  %i = add i32 %g, %t
  %past = icmp uge i32 %i, %n
  br i1 %past, label %early, label %work

early:
  ret void

work:
  %slot = getelementptr [256 x i32], ptr addrspace(3) @partial, i32 0, i32 %t
  store i32 %i, ptr addrspace(3) %slot
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %v = load i32, ptr addrspace(3) @partial
  store i32 %v, ptr %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

; CHECK-LABEL: define ptx_kernel void @guarded_sum(
; CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK-LABEL: define ptx_kernel void @guarded_sum__baton_slice(
; CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK-LABEL: define ptx_kernel void @guarded_sum__baton_ptb(
; CHECK: baton.first:
; CHECK: call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
; CHECK: {{^}}early:
; CHECK-NEXT: br label %baton.next
; CHECK: {{^}}work:
; CHECK-NOT: barrier.cta.sync
; CHECK: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 0, i1 false)
; CHECK-NOT: barrier.cta.sync
; CHECK: br label %baton.next
; CHECK: baton.fetched:
; CHECK-NEXT: br label %baton.drain
; CHECK: baton.drain:
; CHECK-NEXT: %baton.all = call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 0, i1 true)
; CHECK-NEXT: br i1 %baton.all, label %baton.drained, label %baton.drain
; CHECK: baton.drained:
; CHECK-NEXT: br label %baton.loop

; PTX-LABEL: .entry guarded_sum__baton_ptb(
; PTX: barrier.sync 0;
; PTX: barrier.red.and.pred
; PTX: barrier.red.and.pred
; PTX-NOT: bar.sync
; PTX: ret;
