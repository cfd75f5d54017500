; A kernel that returns a value (IR can say so; CUDA and PTX cannot) gets no
; variants: no launch receives the value, and a variant's exits could not
; return it. The plugin used to build them anyway and abort on the broken
; module.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; llc takes the output (ptxas would reject the original's own PTX, which
; stores its return value into a parameter an .entry does not have).
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel i32 @returns_block(ptr %out) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %b, ptr %out, align 4
  ret i32 %b
}

define ptx_kernel void @stores_block(ptr %out) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %b, ptr %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN: warning: kernel 'returns_block' gets no variants: returns a value (i32), which no launch receives and no variant can return [returns-value]
; WARN-NOT: stores_block
; CHECK-NOT: @returns_block__baton
; CHECK: define ptx_kernel void @stores_block__baton_slice(
; CHECK: define ptx_kernel void @stores_block__baton_ptb(
