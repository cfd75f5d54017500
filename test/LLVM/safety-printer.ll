; print<baton-safety> prints each kernel's decision and changes nothing.
; RUN: %opt -passes='print<baton-safety>' -disable-output %s 2>&1 | FileCheck %s
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @fine(ptr %p) {
  ret void
}

define ptx_kernel void @votes(ptr %p, i1 %v) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = icmp eq i32 %t, 0
  br i1 %first, label %out, label %count

count:
  %n = call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0, i1 %v)
  br label %out

out:
  ret void
}

define ptx_kernel void @sm(ptr %p) {
  %s = call i32 @llvm.nvvm.read.ptx.sreg.smid()
  ret void
}

declare i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32, i1)
declare i32 @llvm.nvvm.read.ptx.sreg.smid()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; CHECK-NOT: warning
; CHECK: kernel 'fine': slice yes, ptb yes
; CHECK-NEXT: kernel 'votes': slice yes, ptb no
; CHECK-NEXT:   [barrier-reduction] in 'votes': uses a reduction barrier
; CHECK-NEXT: kernel 'sm': slice no, ptb no
; CHECK-NEXT:   [hardware-id] in 'sm': reads %smid
