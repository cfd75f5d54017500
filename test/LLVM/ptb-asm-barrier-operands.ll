; Named barriers in inline PTX whose id or thread count is an asm operand
; (`asm("bar.sync 1, %0;" :: "r"(n))`, `"n"`), as CUDA code writes them, are
; classified like the intrinsics: an id that is a constant is reserved and
; the PTB variant is made (the worker loop takes the lowest free id, here
; 0); a full-CTA sync whose id is an operand joins the drain like
; __syncthreads. An id that is not a constant is `barrier-register-id`, and
; a barrier or exit inside a longer asm statement in the kernel is
; `exit-or-barrier-in-asm`.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @register_count(ptr %out, i32 %n) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  call void asm sideeffect "bar.arrive 1, $0;", "r"(i32 %n)
  call void asm sideeffect "bar.sync 1, $0;", "r"(i32 %n)
  store i32 %x, ptr %out
  ret void
}

define ptx_kernel void @operand_id_and_count(ptr %out) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  call void asm sideeffect "bar.sync $0, $1;", "n,n"(i32 2, i32 128)
  store i32 %x, ptr %out
  ret void
}

; An output operand comes first: the id is operand 1, the first argument.
define ptx_kernel void @after_an_output(ptr %out) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %t = call i32 asm sideeffect "mov.u32 $0, %tid.x;", "=r"()
  call void asm sideeffect "barrier.sync $0, 64;", "n"(i32 3)
  store i32 %t, ptr %out
  ret void
}

define ptx_kernel void @guarded_full_sync(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %past = icmp uge i32 %t, %n
  br i1 %past, label %early, label %work

early:
  ret void

work:
  call void asm sideeffect "bar.sync $0;", "n"(i32 0)
  store i32 %t, ptr %out
  ret void
}

; `${N}` names operand N too; an indirect output (`=*m`) is passed as an
; argument and counts, a clobber does not.
define ptx_kernel void @braced_and_indirect(ptr %out, i32 %n) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  call void asm sideeffect "bar.sync ${0}, ${1};", "n,r,~{memory}"(i32 4, i32 %n)
  call void asm sideeffect "bar.arrive $1, 64;", "=*m,n"(ptr elementtype(i32) %out, i32 5)
  store i32 %x, ptr %out
  ret void
}

; An asm barrier with a result is not a lone barrier: the PTB drain could not
; replace it.
define ptx_kernel void @barrier_with_result(ptr %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %past = icmp uge i32 %t, %n
  br i1 %past, label %early, label %work

early:
  ret void

work:
  %r = call i32 asm sideeffect "bar.sync $1;", "=r,n"(i32 0)
  store i32 %r, ptr %out
  ret void
}

define ptx_kernel void @register_id(ptr %out) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %id = and i32 %x, 1
  call void asm sideeffect "bar.sync $0, 64;", "r"(i32 %id)
  store i32 %x, ptr %out
  ret void
}

define ptx_kernel void @barrier_among_others(ptr %out) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  call void asm sideeffect "membar.cta;\0A\09bar.sync 0;", ""()
  store i32 %x, ptr %out
  ret void
}

define ptx_kernel void @exit_among_others(ptr %out, i32 %n) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  call void asm sideeffect "{\0A\09.reg .pred p;\0A\09setp.ge.u32 p, $0, 100;\0A\09@p exit;\0A\09}", "r"(i32 %n)
  store i32 %x, ptr %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; WARN-NOT: register_count
; WARN-NOT: operand_id_and_count
; WARN-NOT: after_an_output
; WARN-NOT: guarded_full_sync
; WARN-NOT: braced_and_indirect
; WARN: warning: kernel 'barrier_with_result' gets no ptb variant: has a CTA barrier in inline assembly that is not a lone bar/barrier instruction with operands it can read; PTB workers redirect only barriers they can read whole [exit-or-barrier-in-asm]
; WARN: warning: kernel 'register_id' gets no ptb variant: uses a barrier whose id is not a constant below 16 [barrier-register-id]
; WARN: warning: kernel 'barrier_among_others' gets no ptb variant: has a CTA barrier in inline assembly that is not a lone bar/barrier instruction with operands it can read; PTB workers redirect only barriers they can read whole [exit-or-barrier-in-asm]
; WARN: warning: kernel 'exit_among_others' gets no ptb variant: calls exit in inline assembly among other PTX; a PTB worker cannot end only its virtual block from there [exit-or-barrier-in-asm]

; CHECK-LABEL: define ptx_kernel void @register_count__baton_ptb(
; CHECK: call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
; CHECK: call void asm sideeffect "bar.arrive 1, $0;", "r"(i32 %n)
; CHECK-NEXT: call void asm sideeffect "bar.sync 1, $0;", "r"(i32 %n)
; CHECK-LABEL: define ptx_kernel void @operand_id_and_count__baton_ptb(
; CHECK: call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
; CHECK: call void asm sideeffect "bar.sync $0, $1;", "n,n"(i32 2, i32 128)
; CHECK-LABEL: define ptx_kernel void @after_an_output__baton_ptb(
; CHECK: call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
; CHECK: call void asm sideeffect "barrier.sync $0, 64;", "n"(i32 3)
; CHECK-LABEL: define ptx_kernel void @guarded_full_sync__baton_ptb(
; CHECK-NOT: asm sideeffect "bar.sync $0;"
; CHECK: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 0, i1 false)
; CHECK: baton.drain:
; CHECK-NEXT: call i1 @llvm.nvvm.barrier.cta.red.and.all(i32 0, i1 true)
; CHECK-LABEL: define ptx_kernel void @braced_and_indirect__baton_ptb(
; CHECK: call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
; CHECK: call void asm sideeffect "bar.sync ${0}, ${1};"
; CHECK-LABEL: define ptx_kernel void @barrier_with_result__baton_slice(
; CHECK-NOT: define ptx_kernel void @barrier_with_result__baton_ptb(
; CHECK-LABEL: define ptx_kernel void @register_id__baton_slice(
; CHECK-NOT: define ptx_kernel void @register_id__baton_ptb(
; CHECK-LABEL: define ptx_kernel void @barrier_among_others__baton_slice(
; CHECK-NOT: define ptx_kernel void @barrier_among_others__baton_ptb(
; CHECK-LABEL: define ptx_kernel void @exit_among_others__baton_slice(
; CHECK-NOT: define ptx_kernel void @exit_among_others__baton_ptb(
