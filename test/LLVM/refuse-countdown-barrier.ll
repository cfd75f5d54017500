; A grid-wide barrier that counts down, as clang compiles it: each block
; takes one from a count of the blocks still to come, and the block that
; finds it at one (or, with atomicDec's wrap, at zero) resets it to the grid
; size and changes a generation word, while the others wait for that word
; to change. It needs every block resident at once; a variant would hang,
; so it is refused, as baton-ptx refuses it
; (test/PTX/refuse-countdown-barrier.ptx), whether the count is reset by a
; store of %nctaid or by atomicDec's wrap bound. Kept: the first block to
; arrive initialising while the others wait for it, and a count reset to
; the grid size with a last block's test that nobody waits on.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90 %t.ll -o %t.ptx && %ptxas -c %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@left = addrspace(1) global i32 0
@gen = addrspace(1) global i32 0
@arrived = addrspace(1) global i32 0
@ready = addrspace(1) global i32 0

define ptx_kernel void @countdown_sub() {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %arrive, label %done

arrive:
  %my = load volatile i32, ptr addrspacecast (ptr addrspace(1) @gen to ptr), align 4
  call void @llvm.nvvm.membar.gl()
  %old = atomicrmw add ptr addrspacecast (ptr addrspace(1) @left to ptr), i32 -1 seq_cst, align 4
  %last = icmp eq i32 %old, 1
  br i1 %last, label %release, label %wait

release:
  %n = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  store i32 %n, ptr addrspacecast (ptr addrspace(1) @left to ptr), align 4
  call void @llvm.nvvm.membar.gl()
  %next = add i32 %my, 1
  store volatile i32 %next, ptr addrspacecast (ptr addrspace(1) @gen to ptr), align 4
  br label %done

wait:
  %now = load volatile i32, ptr addrspacecast (ptr addrspace(1) @gen to ptr), align 4
  %same = icmp eq i32 %now, %my
  br i1 %same, label %wait, label %done

done:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @countdown_dec(ptr %counter, ptr %generation) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %arrive, label %done

arrive:
  %my = load volatile i32, ptr %generation, align 4
  call void @llvm.nvvm.membar.gl()
  %n = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %bound = add nsw i32 %n, -1
  %old = atomicrmw udec_wrap ptr %counter, i32 %bound seq_cst, align 4
  %last = icmp eq i32 %old, 0
  br i1 %last, label %release, label %wait

release:
  call void @llvm.nvvm.membar.gl()
  %next = add i32 %my, 1
  store volatile i32 %next, ptr %generation, align 4
  br label %done

wait:
  %now = load volatile i32, ptr %generation, align 4
  %same = icmp eq i32 %now, %my
  br i1 %same, label %wait, label %done

done:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @first_initializes() {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %arrive, label %done

arrive:
  %n = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %old = atomicrmw add ptr addrspacecast (ptr addrspace(1) @arrived to ptr), i32 1 seq_cst, align 4
  %first = icmp eq i32 %old, 0
  br i1 %first, label %init, label %wait

init:
  store i32 %n, ptr addrspacecast (ptr addrspace(1) @left to ptr), align 4
  call void @llvm.nvvm.membar.gl()
  store volatile i32 1, ptr addrspacecast (ptr addrspace(1) @ready to ptr), align 4
  br label %done

wait:
  %now = load volatile i32, ptr addrspacecast (ptr addrspace(1) @ready to ptr), align 4
  %unset = icmp eq i32 %now, 0
  br i1 %unset, label %wait, label %done

done:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @countdown_last_block() {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %arrive, label %done

arrive:
  %old = atomicrmw add ptr addrspacecast (ptr addrspace(1) @left to ptr), i32 -1 seq_cst, align 4
  %last = icmp eq i32 %old, 1
  br i1 %last, label %release, label %done

release:
  %n = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  store i32 %n, ptr addrspacecast (ptr addrspace(1) @left to ptr), align 4
  %g = load volatile i32, ptr addrspacecast (ptr addrspace(1) @gen to ptr), align 4
  %g1 = add i32 %g, 1
  store volatile i32 %g1, ptr addrspacecast (ptr addrspace(1) @gen to ptr), align 4
  br label %done

done:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare void @llvm.nvvm.membar.gl()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

; WARN: warning: kernel 'countdown_sub' gets no variants: waits in a loop for a word in global memory to change from the value it read before, where the block that arrives last (by an atomic count checked against the grid size, %nctaid) changes it: {{.*}} [grid-sync]
; WARN: warning: kernel 'countdown_dec' gets no variants: waits in a loop for a word in global memory to change {{.*}} [grid-sync]
; WARN-NOT: warning: kernel 'first_initializes'
; WARN-NOT: warning: kernel 'countdown_last_block'
; CHECK-NOT: @countdown_sub__baton
; CHECK-NOT: @countdown_dec__baton
; CHECK: define ptx_kernel void @first_initializes__baton_slice(
; CHECK: define ptx_kernel void @first_initializes__baton_ptb(
; CHECK: define ptx_kernel void @countdown_last_block__baton_slice(
; CHECK: define ptx_kernel void @countdown_last_block__baton_ptb(
