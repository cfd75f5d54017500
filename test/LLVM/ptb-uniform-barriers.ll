; The PTB variant drains (barrier.red.and at the block's end and in place of
; the body's full-CTA barriers) only where threads of a CTA may part before
; a full-CTA barrier (lib/LLVM/BarrierDivergence.h):
;  - @tiled: a loop of barriers whose trip count is a kernel argument: no
;    drain; the body's barriers stay as they are.
;  - @const_bound: a branch on a load from the constant address space: no
;    drain.
;  - @exit_after_barrier: a %tid-dependent exit after the last barrier: no
;    drain.
;  - @global_flag: a branch on a load from global memory, which another
;    thread may be writing: drain.
;  - @frozen: a branch on a freeze, which may differ between threads: drain.
;  - @switch_on_tid: a switch on %tid that can reach a barrier: drain.
;  - @guarded_load: `if (t < n)` around a load, the paths meeting again
;    before the barrier with no barrier or exit between: no drain.
;  - @joined_flag: a flag set on one side of a %tid branch that rejoins,
;    then an exit on that flag before a barrier: the phi at the join holds
;    whichever side a thread took, so the exit parts threads: drain.
;  - @counted_vote: an exit on the result of a reduction with a thread
;    count, which each group of threads gets its own of: drain.
; RUN: %opt -passes=baton-variants %s -S | FileCheck %s
; RUN: %opt -passes=baton-variants %s -o %t.bc
; RUN: %llc -mcpu=sm_90a %t.bc -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [128 x float] undef, align 4
@limit = internal addrspace(4) constant i32 7, align 4

define ptx_kernel void @tiled(ptr addrspace(1) %a, ptr addrspace(1) %out, i32 %tiles) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %any = icmp sgt i32 %tiles, 0
  br i1 %any, label %loop, label %done

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %row = mul i32 %k, 128
  %idx = add i32 %row, %t
  %src = getelementptr float, ptr addrspace(1) %a, i32 %idx
  %v = load float, ptr addrspace(1) %src
  %slot = getelementptr [128 x float], ptr addrspace(3) @tile, i32 0, i32 %t
  store float %v, ptr addrspace(3) %slot
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %w = load float, ptr addrspace(3) @tile
  %acc.next = fadd float %acc, %w
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %k.next = add i32 %k, 1
  %more = icmp slt i32 %k.next, %tiles
  br i1 %more, label %loop, label %done

done:
  %r = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %o = add i32 %b, %t
  %dst = getelementptr float, ptr addrspace(1) %out, i32 %o
  store float %r, ptr addrspace(1) %dst
  ret void
}

define ptx_kernel void @const_bound(ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lim = load i32, ptr addrspace(4) @limit
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %past = icmp uge i32 %b, %lim
  br i1 %past, label %early, label %work

early:
  ret void

work:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %dst = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %t, ptr addrspace(1) %dst
  ret void
}

define ptx_kernel void @exit_after_barrier(ptr addrspace(1) %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %slot = getelementptr [128 x float], ptr addrspace(3) @tile, i32 0, i32 %t
  store float 1.0, ptr addrspace(3) %slot
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %past = icmp uge i32 %t, %n
  br i1 %past, label %early, label %work

early:
  ret void

work:
  %v = load float, ptr addrspace(3) @tile
  %dst = getelementptr float, ptr addrspace(1) %out, i32 %t
  store float %v, ptr addrspace(1) %dst
  ret void
}

define ptx_kernel void @global_flag(ptr addrspace(1) %flag, ptr addrspace(1) %out) {
entry:
  %f = load i32, ptr addrspace(1) %flag
  %stop = icmp ne i32 %f, 0
  br i1 %stop, label %early, label %work

early:
  ret void

work:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %dst = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %t, ptr addrspace(1) %dst
  ret void
}

define ptx_kernel void @frozen(ptr addrspace(1) %out, i1 %c) {
entry:
  %fc = freeze i1 %c
  br i1 %fc, label %early, label %work

early:
  ret void

work:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %dst = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %t, ptr addrspace(1) %dst
  ret void
}

define ptx_kernel void @switch_on_tid(ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  switch i32 %t, label %work [ i32 0, label %early ]

early:
  ret void

work:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %dst = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %t, ptr addrspace(1) %dst
  ret void
}

define ptx_kernel void @guarded_load(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %live = icmp ult i32 %t, %n
  br i1 %live, label %load, label %join

load:
  %src = getelementptr float, ptr addrspace(1) %in, i32 %t
  %x = load float, ptr addrspace(1) %src
  br label %join

join:
  %v = phi float [ %x, %load ], [ 0.0, %entry ]
  %slot = getelementptr [128 x float], ptr addrspace(3) @tile, i32 0, i32 %t
  store float %v, ptr addrspace(3) %slot
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %dst = getelementptr float, ptr addrspace(1) %out, i32 %t
  store float %v, ptr addrspace(1) %dst
  ret void
}

define ptx_kernel void @joined_flag(ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %low = icmp ult i32 %t, 32
  br i1 %low, label %set, label %join

set:
  br label %join

join:
  %flag = phi i1 [ true, %set ], [ false, %entry ]
  br i1 %flag, label %early, label %work

early:
  ret void

work:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %dst = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %t, ptr addrspace(1) %dst
  ret void
}

define ptx_kernel void @counted_vote(ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %low = icmp ult i32 %t, 32
  %n = call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.count(i32 1, i32 64, i1 %low)
  %none = icmp eq i32 %n, 0
  br i1 %none, label %early, label %work

early:
  ret void

work:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %dst = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %n, ptr addrspace(1) %dst
  ret void
}

declare i32 @llvm.nvvm.barrier.cta.red.popc.aligned.count(i32, i32, i1)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

; CHECK-LABEL: define ptx_kernel void @tiled__baton_ptb(
; CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK-NOT: red.and
; CHECK-LABEL: define ptx_kernel void @const_bound__baton_ptb(
; CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK-NOT: red.and
; CHECK-LABEL: define ptx_kernel void @exit_after_barrier__baton_ptb(
; CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK-NOT: red.and
; CHECK-LABEL: define ptx_kernel void @global_flag__baton_ptb(
; CHECK: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 0, i1 false)
; CHECK: baton.drain:
; CHECK-LABEL: define ptx_kernel void @frozen__baton_ptb(
; CHECK: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 0, i1 false)
; CHECK: baton.drain:
; CHECK-LABEL: define ptx_kernel void @switch_on_tid__baton_ptb(
; CHECK: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 0, i1 false)
; CHECK: baton.drain:
; CHECK-LABEL: define ptx_kernel void @guarded_load__baton_ptb(
; CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK-NOT: red.and
; CHECK-LABEL: define ptx_kernel void @joined_flag__baton_ptb(
; CHECK: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 0, i1 false)
; CHECK: baton.drain:
; CHECK-LABEL: define ptx_kernel void @counted_vote__baton_ptb(
; CHECK: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 0, i1 false)
; CHECK: baton.drain:
