; The vtable of an abstract class holds __cxa_pure_virtual, declared but not
; defined: an indirect call beside it is not refused for it (the stub traps
; and never sees the block index), in either front end.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN --allow-empty
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx
; RUN: %llc -mcpu=sm_90a %s -o %t.orig.ptx
; RUN: %baton-ptx %t.orig.ptx -o %t.orig.out.ptx 2>&1 | FileCheck %s --check-prefix=WARN --allow-empty
; RUN: FileCheck %s --check-prefix=PTX < %t.orig.out.ptx
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@vtable = addrspace(1) global [2 x ptr] [ptr @__cxa_pure_virtual, ptr @area]

define void @area(ptr %out) {
  store i32 1, ptr %out
  ret void
}

define ptx_kernel void @calls_virtual(ptr %out, i32 %slot) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %at = getelementptr [2 x ptr], ptr addrspace(1) @vtable, i32 0, i32 %slot
  %f = load ptr, ptr addrspace(1) %at
  %p = getelementptr i32, ptr %out, i32 %x
  call void %f(ptr %p)
  ret void
}

declare void @__cxa_pure_virtual()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN-NOT: warning
; CHECK: define ptx_kernel void @calls_virtual__baton_slice(
; CHECK: define ptx_kernel void @calls_virtual__baton_ptb(
; PTX: .entry calls_virtual__baton_slice(
; PTX: .entry calls_virtual__baton_ptb(
