; A sense-reversing grid-wide barrier written by hand, as clang compiles
; CUDA's atomicAdd(&gen, 0) polls: each block reads the generation, counts
; its arrival, and the block whose count says it arrived last (compared
; with the grid size) changes the generation while the others wait for it
; to change. It needs every block resident at once; a variant would hang,
; so it is refused, as baton-ptx refuses it
; (test/PTX/refuse-generation-wait.ptx): also in the textbook form (the
; block waits for the flag to equal the sense it flipped) and with libcu++'s
; ld.acquire in inline asm. Kept: the last block's test
; without a wait, and a wait for a word to change with no arrival count
; checked against the grid size.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90 %t.ll -o %t.ptx && %ptxas -c %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@count = addrspace(1) global i32 0
@gen = addrspace(1) global i32 0
@flag = addrspace(1) global i32 0

define ptx_kernel void @sense(ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %arrive, label %done

arrive:
  %seen = atomicrmw or ptr addrspace(1) @gen, i32 0 monotonic
  %ticket = atomicrmw add ptr addrspace(1) @count, i32 1 monotonic
  %blocks = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %lastone = add i32 %blocks, -1
  %islast = icmp eq i32 %ticket, %lastone
  br i1 %islast, label %flip, label %wait

flip:
  store volatile i32 0, ptr addrspace(1) @count
  %ignored = atomicrmw add ptr addrspace(1) @gen, i32 1 monotonic
  br label %done

wait:
  %now = atomicrmw or ptr addrspace(1) @gen, i32 0 monotonic
  %same = icmp eq i32 %now, %seen
  br i1 %same, label %wait, label %done

done:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @last_block(ptr %out) {
entry:
  %ticket = atomicrmw add ptr addrspace(1) @count, i32 1 monotonic
  %blocks = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %lastone = add i32 %blocks, -1
  %islast = icmp eq i32 %ticket, %lastone
  br i1 %islast, label %sum, label %done

sum:
  %v = load volatile i32, ptr addrspace(1) @gen
  store i32 %v, ptr %out
  br label %done

done:
  ret void
}

define ptx_kernel void @flag_change(ptr %out) {
entry:
  %seen = load volatile i32, ptr addrspace(1) @flag
  br label %wait

wait:
  %now = load volatile i32, ptr addrspace(1) @flag
  %same = icmp eq i32 %now, %seen
  br i1 %same, label %wait, label %go

go:
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %n = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %s = add i32 %b, %n
  %p = getelementptr i32, ptr %out, i32 %b
  store i32 %s, ptr %p
  ret void
}

define ptx_kernel void @sense_flip(ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %arrive, label %done

arrive:
  %old = load volatile i32, ptr addrspace(1) @flag
  %mine = sub i32 1, %old
  %ticket = atomicrmw add ptr addrspace(1) @count, i32 1 monotonic
  %blocks = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %lastone = add i32 %blocks, -1
  %islast = icmp eq i32 %ticket, %lastone
  br i1 %islast, label %flip, label %wait

flip:
  store volatile i32 0, ptr addrspace(1) @count
  store volatile i32 %mine, ptr addrspace(1) @flag
  br label %done

wait:
  %now = load volatile i32, ptr addrspace(1) @flag
  %other = icmp ne i32 %now, %mine
  br i1 %other, label %wait, label %done

done:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

define ptx_kernel void @sense_asm(ptr %out) {
entry:
  %seen = call i32 asm sideeffect "ld.acquire.gpu.global.u32 $0, [$1];", "=r,l"(ptr addrspacecast (ptr addrspace(1) @gen to ptr))
  %ticket = atomicrmw add ptr addrspace(1) @count, i32 1 monotonic
  %blocks = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %lastone = add i32 %blocks, -1
  %islast = icmp eq i32 %ticket, %lastone
  br i1 %islast, label %flip, label %wait

flip:
  %ignored = atomicrmw add ptr addrspace(1) @gen, i32 1 monotonic
  br label %done

wait:
  %now = call i32 asm sideeffect "ld.acquire.gpu.global.u32 $0, [$1];", "=r,l"(ptr addrspacecast (ptr addrspace(1) @gen to ptr))
  %same = icmp eq i32 %now, %seen
  br i1 %same, label %wait, label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

; WARN: warning: kernel 'sense' gets no variants: waits in a loop for a word in global memory to change from the value it read before, where the block that arrives last (by an atomic count checked against the grid size, %nctaid) changes it: a sense-reversing grid-wide barrier written by hand, which needs every block of the grid resident at once, while a variant runs the grid a part at a time (it would hang) [grid-sync]
; WARN-NOT: kernel 'last_block'
; WARN-NOT: kernel 'flag_change'
; WARN: warning: kernel 'sense_flip' gets no variants: waits in a loop for a word in global memory to change {{.*}} [grid-sync]
; WARN: warning: kernel 'sense_asm' gets no variants: waits in a loop for a word in global memory to change {{.*}} [grid-sync]
; WARN-NOT: warning
; CHECK-NOT: @sense__baton
; CHECK-NOT: @sense_flip__baton
; CHECK-NOT: @sense_asm__baton
; CHECK: define ptx_kernel void @last_block__baton_slice(
; CHECK: define ptx_kernel void @last_block__baton_ptb(
; CHECK: define ptx_kernel void @flag_change__baton_slice(
; CHECK: define ptx_kernel void @flag_change__baton_ptb(
