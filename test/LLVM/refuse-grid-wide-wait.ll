; A grid-wide barrier written by hand: one thread a block adds to a counter
; in global memory, then waits until it reaches the number of blocks (the
; goal grows by the grid size every round, as in SHOC's BFS). It needs every
; block resident at once; a variant would hang, so it is refused. Loops that
; are not such waits keep their variants: a spin lock (a compare-and-swap
; against a constant), a wait for the previous block's flag (decoupled
; look-back), a loop that claims work with an atomic against a grid-sized
; bound, and a grid-stride search that polls a flag (its grid size is in
; the induction variable, not a goal).
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas -c %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@arrived = addrspace(1) global i32 0
@lock = addrspace(1) global i32 0
@flags = addrspace(1) global [64 x i32] zeroinitializer

define ptx_kernel void @barrier_rounds(i32 %rounds) {
entry:
  br label %round

round:
  %goal = phi i32 [ 0, %entry ], [ %next.goal, %passed ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %passed ]
  %ignored = atomicrmw add ptr addrspace(1) @arrived, i32 1 monotonic
  %blocks = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %next.goal = add i32 %goal, %blocks
  br label %poll

poll:
  %seen = load volatile i32, ptr addrspace(1) @arrived
  %short = icmp ult i32 %seen, %next.goal
  br i1 %short, label %poll, label %passed

passed:
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %rounds
  br i1 %more, label %round, label %done

done:
  ret void
}

; The count read past the L1 by inline PTX (__ldcg): a poll.
define ptx_kernel void @barrier_ldcg() {
entry:
  %ignored = atomicrmw add ptr addrspace(1) @arrived, i32 1 monotonic
  %blocks = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  br label %poll

poll:
  %seen = call i32 asm sideeffect "ld.global.cg.u32 $0, [$1];", "=r,l"(ptr addrspace(1) @arrived)
  %short = icmp ult i32 %seen, %blocks
  br i1 %short, label %poll, label %done

done:
  ret void
}

define ptx_kernel void @spin_lock() {
entry:
  br label %try

try:
  %pair = cmpxchg ptr addrspace(1) @lock, i32 0, i32 1 acquire monotonic
  %won = extractvalue { i32, i1 } %pair, 1
  br i1 %won, label %held, label %try

held:
  store atomic i32 0, ptr addrspace(1) @lock release, align 4
  ret void
}

define ptx_kernel void @look_back() {
entry:
  %block = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %first = icmp eq i32 %block, 0
  br i1 %first, label %publish, label %spin.entry

spin.entry:
  %prev = sub i32 %block, 1
  %prev.flag = getelementptr [64 x i32], ptr addrspace(1) @flags, i32 0, i32 %prev
  br label %spin

spin:
  %flag = load volatile i32, ptr addrspace(1) %prev.flag
  %unset = icmp eq i32 %flag, 0
  br i1 %unset, label %spin, label %publish

publish:
  %own = getelementptr [64 x i32], ptr addrspace(1) @flags, i32 0, i32 %block
  store volatile i32 1, ptr addrspace(1) %own
  ret void
}

define ptx_kernel void @claim_loop() {
entry:
  %blocks = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %bound = shl i32 %blocks, 2
  br label %claim

claim:
  %item = atomicrmw add ptr addrspace(1) @arrived, i32 1 monotonic
  %more = icmp ult i32 %item, %bound
  br i1 %more, label %claim, label %done

done:
  ret void
}

define ptx_kernel void @stride_search(i32 %n) {
entry:
  %first = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %stride = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  br label %look

look:
  %i = phi i32 [ %first, %entry ], [ %i.next, %look ]
  %raised = load volatile i32, ptr addrspace(1) @lock
  %clear = icmp eq i32 %raised, 0
  %i.next = add i32 %i, %stride
  %inside = icmp ult i32 %i.next, %n
  %go = and i1 %clear, %inside
  br i1 %go, label %look, label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN: warning: kernel 'barrier_rounds' gets no variants: waits in a loop until a value in global memory reaches one computed from the grid size (%nctaid): a grid-wide barrier written by hand, which needs every block of the grid resident at once, while a variant runs the grid a part at a time (it would hang) [grid-sync]
; WARN: warning: kernel 'barrier_ldcg' gets no variants: waits in a loop {{.*}} [grid-sync]
; WARN-NOT: warning
; CHECK-NOT: @barrier_rounds__baton
; CHECK-NOT: @barrier_ldcg__baton
; CHECK: define ptx_kernel void @spin_lock__baton_slice(
; CHECK: define ptx_kernel void @spin_lock__baton_ptb(
; CHECK: define ptx_kernel void @look_back__baton_slice(
; CHECK: define ptx_kernel void @look_back__baton_ptb(
; CHECK: define ptx_kernel void @claim_loop__baton_slice(
; CHECK: define ptx_kernel void @stride_search__baton_slice(
