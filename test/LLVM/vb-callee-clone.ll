; A device function that reads the block index, directly or through a
; callee, is cloned as f__baton_vb with the six values as extra parameters;
; the originals stay for the original kernel and for other callers.
; RUN: %opt -passes=baton-variants %s -S | FileCheck %s
; RUN: %opt -passes=baton-variants %s -o %t.bc
; RUN: %llc -mcpu=sm_90a %t.bc -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define i32 @helper(i32 %a) {
  %y = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %m = mul i32 %y, %nx
  %r = add i32 %a, %m
  ret i32 %r
}

define i32 @outer(i32 %a) {
  %r = call i32 @helper(i32 %a)
  ret i32 %r
}

define i32 @plain(i32 %a) {
  ret i32 %a
}

define void @other(ptr %p) {
  %v = call i32 @helper(i32 2)
  store i32 %v, ptr %p
  ret void
}

define ptx_kernel void @kern(ptr %out) {
  %v = call i32 @outer(i32 1)
  %w = call i32 @plain(i32 %v)
  store i32 %w, ptr %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()

; CHECK-LABEL: define i32 @helper(i32 %a)
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
; CHECK-LABEL: define i32 @outer(i32 %a)
; CHECK: call i32 @helper(i32 %a)
; CHECK-LABEL: define void @other(
; CHECK: call i32 @helper(i32 2)
; CHECK-LABEL: define ptx_kernel void @kern(
; CHECK: call i32 @outer(i32 1)
; CHECK-LABEL: define internal i32 @outer__baton_vb(i32 %a, i32 %baton.ctaid.x, i32 %baton.ctaid.y, i32 %baton.ctaid.z, i32 %baton.nctaid.x, i32 %baton.nctaid.y, i32 %baton.nctaid.z)
; CHECK: call i32 @helper__baton_vb(i32 %a, i32 %baton.ctaid.x, i32 %baton.ctaid.y, i32 %baton.ctaid.z, i32 %baton.nctaid.x, i32 %baton.nctaid.y, i32 %baton.nctaid.z)
; CHECK-LABEL: define internal i32 @helper__baton_vb(
; CHECK-NOT: sreg.ctaid
; CHECK: mul i32 %baton.ctaid.y, %baton.nctaid.x
; CHECK-LABEL: define ptx_kernel void @kern__baton_slice(
; CHECK: call i32 @outer__baton_vb(i32 1, i32 %baton.ctaid.x, i32 %baton.ctaid.y, i32 %baton.ctaid.z, i32 %baton.nctaid.x, i32 %baton.nctaid.y, i32 %baton.nctaid.z)
; CHECK: call i32 @plain(i32 %v)
; CHECK-LABEL: define ptx_kernel void @kern__baton_ptb(
; CHECK: call i32 @outer__baton_vb(i32 1,
; CHECK-NOT: define {{.*}}@plain__baton_vb
