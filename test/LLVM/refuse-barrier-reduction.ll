; __syncthreads_count/and/or (barrier reductions) cannot be joined by threads
; that left their virtual block early: where threads may part at a branch
; from which a reduction is still reachable, the kernel gets the slice
; variant only. Where no thread can part before it (count_votes), or threads
; part only after it (count_then_part, which then needs the drain for its
; later __syncthreads), the PTB variant keeps the reduction as it is, with
; the worker loop on another barrier id, as baton-ptx does
; (test/PTX/ptb-divergence.ptx).
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

define ptx_kernel void @part_then_count(ptr %p, i32 %limit) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %out = icmp uge i32 %t, %limit
  br i1 %out, label %done, label %count

count:
  %n = call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0, i1 true)
  %s = add i32 %n, %x
  store i32 %s, ptr %p
  br label %done

done:
  ret void
}

define ptx_kernel void @count_then_part(ptr %p, i32 %limit) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %out = icmp uge i32 %t, %limit
  %n = call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0, i1 %out)
  %none = icmp eq i32 %n, 0
  br i1 %none, label %done, label %more

more:
  br i1 %out, label %done, label %sync

sync:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %s = add i32 %n, %x
  store i32 %s, ptr %p
  br label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32, i1)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

; WARN-NOT: 'count_votes'
; WARN: warning: kernel 'part_then_count' gets no ptb variant: uses a reduction barrier (bar.red, from __syncthreads_count/and/or) that some threads of a CTA may reach after others have left (threads may take different paths at a branch on a value that may differ between them); in a PTB worker the threads that left wait for the next block and cannot join it [barrier-reduction]
; WARN-NOT: warning

; CHECK-LABEL: define ptx_kernel void @count_votes__baton_slice(
; CHECK: call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0, i1 %vote)
; CHECK-LABEL: define ptx_kernel void @count_votes__baton_ptb(
; CHECK: call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0, i1 %vote)
; CHECK: call void @llvm.nvvm.barrier.cta.sync.all(i32 1)
; CHECK-LABEL: define ptx_kernel void @part_then_count__baton_slice(
; CHECK-NOT: @part_then_count__baton_ptb
; CHECK-LABEL: define ptx_kernel void @count_then_part__baton_ptb(
; CHECK: call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0, i1 %out)
; CHECK: @llvm.nvvm.barrier.cta.red.and.all(i32 1,
