; exit inside a device function would end the PTB worker, not the virtual
; block: PTB refused, slice kept.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @bail(i32 %v) {
  %z = icmp eq i32 %v, 0
  br i1 %z, label %stop, label %go
stop:
  call void @llvm.nvvm.exit()
  unreachable
go:
  ret void
}

define ptx_kernel void @calls_bail(ptr %p) {
  %v = load i32, ptr %p
  call void @bail(i32 %v)
  ret void
}

declare void @llvm.nvvm.exit()

; WARN: warning: kernel 'calls_bail' gets no ptb variant (in function 'bail'): calls exit inside a device function; a PTB worker cannot end only its virtual block from there [exit-in-callee]
; CHECK-LABEL: define ptx_kernel void @calls_bail(
; CHECK: define ptx_kernel void @calls_bail__baton_slice(
; CHECK-NOT: @calls_bail__baton_ptb
