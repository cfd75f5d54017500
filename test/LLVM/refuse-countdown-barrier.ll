; A grid-wide barrier that counts down, as clang compiles it: each block
; takes one from a count of the blocks still to come, and the block that
; finds it at one (or, with atomicDec's wrap, at zero) resets it to the grid
; size and changes a generation word, while the others wait for that word
; to change. It needs every block resident at once; a variant would hang,
; so it is refused, as baton-ptx refuses it
; (test/PTX/refuse-countdown-barrier.ptx), whether the count is reset by a
; store of %nctaid, by an add of it or by atomicDec's wrap bound, with
; the count and the generation in one struct, and with libcu++'s
; cuda::atomic_ref, whose atomics and stores clang leaves as inline PTX.
; Kept: the first block to
; arrive initialising while the others wait for it, a count reset to the
; grid size with a last block's test that nobody waits on, and a ring of
; slots taken with atomicInc modulo the grid size (its wrap goes to 0).
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

define ptx_kernel void @countdown_struct(ptr %bar) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %arrive, label %done

arrive:
  %genp = getelementptr inbounds i8, ptr %bar, i64 4
  %my = load volatile i32, ptr %genp, align 4
  call void @llvm.nvvm.membar.gl()
  %old = atomicrmw add ptr %bar, i32 -1 seq_cst, align 4
  %last = icmp eq i32 %old, 1
  br i1 %last, label %release, label %wait

release:
  %n = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  store i32 %n, ptr %bar, align 4
  call void @llvm.nvvm.membar.gl()
  %g = atomicrmw add ptr %genp, i32 1 seq_cst, align 4
  br label %done

wait:
  %now = load volatile i32, ptr %genp, align 4
  %same = icmp eq i32 %now, %my
  br i1 %same, label %wait, label %done

done:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @countdown_add_reset(ptr %counter, ptr %generation) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %arrive, label %done

arrive:
  %my = load volatile i32, ptr %generation, align 4
  %old = atomicrmw add ptr %counter, i32 -1 seq_cst, align 4
  %last = icmp eq i32 %old, 1
  br i1 %last, label %release, label %wait

release:
  %n = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %r = atomicrmw add ptr %counter, i32 %n seq_cst, align 4
  %g = atomicrmw add ptr %generation, i32 1 seq_cst, align 4
  br label %done

wait:
  %now = load volatile i32, ptr %generation, align 4
  %same = icmp eq i32 %now, %my
  br i1 %same, label %wait, label %done

done:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @ring_inc(ptr %seq) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %take, label %done

take:
  %n = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %bound = add i32 %n, -1
  %slot = atomicrmw uinc_wrap ptr addrspacecast (ptr addrspace(1) @arrived to ptr), i32 %bound seq_cst, align 4
  %first = icmp eq i32 %slot, 0
  br i1 %first, label %clear, label %look

clear:
  store i32 0, ptr addrspacecast (ptr addrspace(1) @ready to ptr), align 4
  br label %look

look:
  %idx = zext i32 %slot to i64
  %slotp = getelementptr inbounds i32, ptr %seq, i64 %idx
  %seen = load volatile i32, ptr %slotp, align 4
  br label %wait

wait:
  %now = load volatile i32, ptr %slotp, align 4
  %same = icmp eq i32 %now, %seen
  %head = load volatile i32, ptr %seq, align 4
  %idle = icmp eq i32 %head, 0
  %both = and i1 %same, %idle
  br i1 %both, label %wait, label %own

own:
  %next = add i32 %seen, 1
  store volatile i32 %next, ptr %slotp, align 4
  br label %done

done:
  ret void
}

define ptx_kernel void @countdown_atomic_ref(ptr %counter, ptr %generation) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %arrive, label %done

arrive:
  %my = call i32 asm sideeffect "ld.acquire.gpu.b32 $0,[$1];", "=r,l,~{memory}"(ptr %generation)
  %old = call i32 asm sideeffect "atom.add.acq_rel.gpu.u32 $0,[$1],$2;", "=r,l,r,~{memory}"(ptr %counter, i32 -1)
  %last = icmp eq i32 %old, 1
  br i1 %last, label %release, label %wait

release:
  %n = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  call void asm sideeffect "st.relaxed.gpu.b32 [$0],$1;", "l,r,~{memory}"(ptr %counter, i32 %n)
  %g = call i32 asm sideeffect "atom.add.release.gpu.u32 $0,[$1],$2;", "=r,l,r,~{memory}"(ptr %generation, i32 1)
  br label %done

wait:
  %now = call i32 asm sideeffect "ld.acquire.gpu.b32 $0,[$1];", "=r,l,~{memory}"(ptr %generation)
  %same = icmp eq i32 %now, %my
  br i1 %same, label %wait, label %done

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
; WARN: warning: kernel 'countdown_struct' gets no variants: waits in a loop for a word in global memory to change {{.*}} [grid-sync]
; WARN: warning: kernel 'countdown_add_reset' gets no variants: waits in a loop for a word in global memory to change {{.*}} [grid-sync]
; WARN-NOT: warning: kernel 'ring_inc'
; WARN: warning: kernel 'countdown_atomic_ref' gets no variants: waits in a loop for a word in global memory to change {{.*}} [grid-sync]
; CHECK-NOT: @countdown_sub__baton
; CHECK-NOT: @countdown_dec__baton
; CHECK: define ptx_kernel void @first_initializes__baton_slice(
; CHECK: define ptx_kernel void @first_initializes__baton_ptb(
; CHECK: define ptx_kernel void @countdown_last_block__baton_slice(
; CHECK: define ptx_kernel void @countdown_last_block__baton_ptb(
; CHECK-NOT: @countdown_struct__baton
; CHECK-NOT: @countdown_add_reset__baton
; CHECK: define ptx_kernel void @ring_inc__baton_slice(
; CHECK: define ptx_kernel void @ring_inc__baton_ptb(
; CHECK-NOT: @countdown_atomic_ref__baton
