; A grid-wide barrier whose blocks count themselves in at a word and wait
; for it to reach a fixed number, as clang -O3 compiles it: counting down
; from a number the host set (atomicSub, then a wait for zero), or up to a
; number in the source, polled with an atomic or of 0, a volatile load and
; libcu++'s inline ld.acquire, at a global variable and through a pointer
; parameter, and an arrival written as inline PTX red.add (CUTLASS's
; barriers write theirs so). It needs every block resident at once; a
; variant would hang, so it is refused, as baton-ptx refuses it
; (test/PTX/refuse-count-wait.ptx).
; Kept: a ticket lock (blocks count in at one word and wait at another),
; claiming items with an atomic, a wait for a flag before a block counts
; itself in, and a block that counts itself in and waits for one arrival,
; its own. And goals read at a count of 1 (below).
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=NONE < %t.ll
; RUN: %llc -mcpu=sm_90 %t.ll -o %t.ptx && %ptxas -c %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@left = addrspace(1) global i32 0, align 4
@arrived = addrspace(1) global i32 0, align 4
@next_ticket = addrspace(1) global i32 0, align 4
@serving = addrspace(1) global i32 0, align 4
@next_item = addrspace(1) global i32 0, align 4
@flag = addrspace(1) global i32 0, align 4
@reached = addrspace(1) global i32 0, align 4
@0 = internal unnamed_addr addrspace(3) global i32 undef, align 4

define ptx_kernel void @countdown_host(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %9

4:                                                ; preds = %1
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @left to ptr), i32 -1 seq_cst, align 4
  br label %6

6:                                                ; preds = %6, %4
  %7 = atomicrmw or ptr addrspacecast (ptr addrspace(1) @left to ptr), i32 0 seq_cst, align 4
  %8 = icmp eq i32 %7, 0
  br i1 %8, label %9, label %6

9:                                                ; preds = %6, %1
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %10 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %11 = zext nneg i32 %10 to i64
  %12 = getelementptr inbounds nuw float, ptr %0, i64 %11
  store float 1.000000e+00, ptr %12, align 4
  ret void
}

define ptx_kernel void @count_then_wait_one(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %9

4:                                                ; preds = %1
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @reached to ptr), i32 1 seq_cst, align 4
  br label %6

6:                                                ; preds = %6, %4
  %7 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @reached to ptr), align 4
  %8 = icmp slt i32 %7, 1
  br i1 %8, label %6, label %9

9:                                                ; preds = %6, %1
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %10 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %11 = zext nneg i32 %10 to i64
  %12 = getelementptr inbounds nuw float, ptr %0, i64 %11
  store float 6.000000e+00, ptr %12, align 4
  ret void
}


define ptx_kernel void @red_rendezvous(ptr %out, ptr %lock) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %arrive, label %done

arrive:
  call void asm sideeffect "red.relaxed.gpu.global.add.s32 [$0], $1;", "l,r"(ptr %lock, i32 1)
  br label %wait

wait:
  %now = call i32 asm sideeffect "ld.global.acquire.gpu.b32 $0, [$1];", "=r,l"(ptr %lock)
  %all = icmp eq i32 %now, 8
  br i1 %all, label %done, label %wait

done:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

define ptx_kernel void @countup_const(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %9

4:                                                ; preds = %1
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @arrived to ptr), i32 1 seq_cst, align 4
  br label %6

6:                                                ; preds = %6, %4
  %7 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @arrived to ptr), align 4
  %8 = icmp ult i32 %7, 1024
  br i1 %8, label %6, label %9

9:                                                ; preds = %6, %1
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %10 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %11 = zext nneg i32 %10 to i64
  %12 = getelementptr inbounds nuw float, ptr %0, i64 %11
  store float 2.000000e+00, ptr %12, align 4
  ret void
}

define ptx_kernel void @countdown_param(ptr noundef writeonly captures(none) %0, ptr noundef %1) {
  %3 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %4 = icmp eq i32 %3, 0
  br i1 %4, label %5, label %10

5:                                                ; preds = %2
  %6 = tail call i32 asm sideeffect "atom.add.relaxed.gpu.u32 $0,[$1],$2;", "=r,l,r,~{memory}"(ptr %1, i32 -1)
  br label %7

7:                                                ; preds = %7, %5
  %8 = tail call i32 asm sideeffect "ld.acquire.gpu.b32 $0,[$1];", "=r,l,~{memory}"(ptr %1)
  %9 = icmp eq i32 %8, 0
  br i1 %9, label %10, label %7

10:                                               ; preds = %7, %2
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %11 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %12 = zext nneg i32 %11 to i64
  %13 = getelementptr inbounds nuw float, ptr %0, i64 %12
  store float 3.000000e+00, ptr %13, align 4
  ret void
}

define ptx_kernel void @ticket_lock(ptr noundef captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %13

4:                                                ; preds = %1
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @next_ticket to ptr), i32 1 seq_cst, align 4
  br label %6

6:                                                ; preds = %6, %4
  %7 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @serving to ptr), align 4
  %8 = icmp eq i32 %7, %5
  br i1 %8, label %9, label %6

9:                                                ; preds = %6
  %10 = load float, ptr %0, align 4
  %11 = fadd contract float %10, 1.000000e+00
  store float %11, ptr %0, align 4
  tail call void @llvm.nvvm.membar.gl()
  %12 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @serving to ptr), i32 1 seq_cst, align 4
  br label %13

13:                                               ; preds = %9, %1
  ret void
}

define ptx_kernel void @claim_items(ptr noundef writeonly captures(none) %0, i32 noundef %1) {
  %3 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %4 = icmp eq i32 %3, 0
  br label %5

5:                                                ; preds = %11, %2
  br i1 %4, label %6, label %8

6:                                                ; preds = %5
  %7 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @next_item to ptr), i32 1 seq_cst, align 4
  store i32 %7, ptr addrspacecast (ptr addrspace(3) @0 to ptr), align 4
  br label %8

8:                                                ; preds = %6, %5
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %9 = load i32, ptr addrspacecast (ptr addrspace(3) @0 to ptr), align 4
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %10 = icmp ult i32 %9, %1
  br i1 %10, label %11, label %14

11:                                               ; preds = %8
  %12 = zext i32 %9 to i64
  %13 = getelementptr inbounds nuw float, ptr %0, i64 %12
  store float 4.000000e+00, ptr %13, align 4
  br label %5

14:                                               ; preds = %8
  ret void
}

define ptx_kernel void @wait_then_count(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %9

4:                                                ; preds = %4, %1
  %5 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @flag to ptr), align 4
  %6 = icmp eq i32 %5, 0
  br i1 %6, label %4, label %7

7:                                                ; preds = %4
  %8 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @arrived to ptr), i32 1 seq_cst, align 4
  br label %9

9:                                                ; preds = %7, %1
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %10 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %11 = zext nneg i32 %10 to i64
  %12 = getelementptr inbounds nuw float, ptr %0, i64 %11
  store float 5.000000e+00, ptr %12, align 4
  ret void
}

; Goals the block's own arrival does not reach, read off the comparison at
; a count of 1 and the branch's direction: a count up from minus the grid
; size the host set, a wait while the count is the block's own arrival
; (staying on true, and leaving on true), and clang's `count > 1` as
; `icmp ugt`. Kept: a wait for any arrival, its own.
@rising = addrspace(1) global i32 0, align 4
@changes = addrspace(1) global i32 0, align 4
@pairs = addrspace(1) global i32 0, align 4
@firsts = addrspace(1) global i32 0, align 4

define ptx_kernel void @count_up_to_zero(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %9

4:
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @rising to ptr), i32 1 seq_cst, align 4
  br label %6

6:
  %7 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @rising to ptr), align 4
  %8 = icmp ne i32 %7, 0
  br i1 %8, label %6, label %9

9:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @wait_for_change(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %9

4:
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @changes to ptr), i32 1 seq_cst, align 4
  br label %6

6:
  %7 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @changes to ptr), align 4
  %8 = icmp eq i32 %7, 1
  br i1 %8, label %6, label %9

9:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @wait_for_change_leaving(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %9

4:
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @changes to ptr), i32 1 seq_cst, align 4
  br label %6

6:
  %7 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @changes to ptr), align 4
  %8 = icmp ne i32 %7, 1
  br i1 %8, label %9, label %6

9:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @count_past_one(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %9

4:
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @pairs to ptr), i32 1 seq_cst, align 4
  br label %6

6:
  %7 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @pairs to ptr), align 4
  %8 = icmp ugt i32 %7, 1
  br i1 %8, label %9, label %6

9:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @wait_for_any(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %9

4:
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @firsts to ptr), i32 1 seq_cst, align 4
  br label %6

6:
  %7 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @firsts to ptr), align 4
  %8 = icmp eq i32 %7, 0
  br i1 %8, label %6, label %9

9:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

; Polled by a compare-and-swap of 0 with 0 (atomicCAS): refused. The first
; block to arrive initialising while the others wait for it (they test
; what their add returned): kept, since the block waited for has arrived
; and runs.
@swapped = addrspace(1) global i32 0, align 4
@state = addrspace(1) global i32 0, align 4

define ptx_kernel void @cas_poll(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %10

4:
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @swapped to ptr), i32 1 seq_cst, align 4
  br label %6

6:
  %7 = cmpxchg ptr addrspacecast (ptr addrspace(1) @swapped to ptr), i32 0, i32 0 seq_cst seq_cst, align 4
  %8 = extractvalue { i32, i1 } %7, 0
  %9 = icmp eq i32 %8, 1
  br i1 %9, label %6, label %10

10:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @first_initialises(ptr noundef writeonly captures(none) %0) {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = icmp eq i32 %2, 0
  br i1 %3, label %4, label %11

4:
  %5 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @state to ptr), i32 1 seq_cst, align 4
  %6 = icmp eq i32 %5, 0
  br i1 %6, label %7, label %8

7:
  tail call void @llvm.nvvm.membar.gl()
  store atomic i32 -1, ptr addrspacecast (ptr addrspace(1) @state to ptr) seq_cst, align 4
  br label %11

8:
  %9 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @state to ptr), align 4
  %10 = icmp sgt i32 %9, 0
  br i1 %10, label %8, label %11

11:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare void @llvm.nvvm.membar.gl()

; WARN: warning: kernel 'countdown_host' gets no variants: counts its block in at a word in global memory with an atomic, then waits in a loop until that word reaches a fixed number: a grid-wide barrier written by hand (counting down from a number the host set, or up to one in the source), which needs every block of the grid resident at once, while a variant runs the grid a part at a time (it would hang) [grid-sync]
; WARN: warning: kernel 'red_rendezvous' gets no variants: counts its block in {{.*}} [grid-sync]
; WARN: warning: kernel 'countup_const' gets no variants: counts its block in {{.*}} [grid-sync]
; WARN: warning: kernel 'countdown_param' gets no variants: counts its block in {{.*}} [grid-sync]
; WARN: warning: kernel 'count_up_to_zero' gets no variants: counts its block in {{.*}} [grid-sync]
; WARN: warning: kernel 'wait_for_change' gets no variants: counts its block in {{.*}} [grid-sync]
; WARN: warning: kernel 'wait_for_change_leaving' gets no variants: counts its block in {{.*}} [grid-sync]
; WARN: warning: kernel 'count_past_one' gets no variants: counts its block in {{.*}} [grid-sync]
; WARN: warning: kernel 'cas_poll' gets no variants: counts its block in {{.*}} [grid-sync]
; WARN-NOT: warning: kernel 'ticket_lock'
; WARN-NOT: warning: kernel 'claim_items'
; WARN-NOT: warning: kernel 'wait_then_count'
; WARN-NOT: warning: kernel 'count_then_wait_one'
; CHECK-DAG: define ptx_kernel void @ticket_lock__baton_slice(
; CHECK-DAG: define ptx_kernel void @ticket_lock__baton_ptb(
; CHECK-DAG: define ptx_kernel void @claim_items__baton_slice(
; CHECK-DAG: define ptx_kernel void @claim_items__baton_ptb(
; CHECK-DAG: define ptx_kernel void @wait_then_count__baton_slice(
; CHECK-DAG: define ptx_kernel void @wait_then_count__baton_ptb(
; CHECK-DAG: define ptx_kernel void @count_then_wait_one__baton_slice(
; CHECK-DAG: define ptx_kernel void @count_then_wait_one__baton_ptb(
; CHECK-DAG: define ptx_kernel void @wait_for_any__baton_slice(
; CHECK-DAG: define ptx_kernel void @wait_for_any__baton_ptb(
; CHECK-DAG: define ptx_kernel void @first_initialises__baton_slice(
; CHECK-DAG: define ptx_kernel void @first_initialises__baton_ptb(
; NONE-NOT: @countdown_host__baton
; NONE-NOT: @countup_const__baton
; NONE-NOT: @countdown_param__baton
; NONE-NOT: @red_rendezvous__baton
; NONE-NOT: @count_up_to_zero__baton
; NONE-NOT: @wait_for_change__baton
; NONE-NOT: @wait_for_change_leaving__baton
; NONE-NOT: @count_past_one__baton
; NONE-NOT: @cas_poll__baton
