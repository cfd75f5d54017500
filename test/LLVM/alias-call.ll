; A call through an alias runs the aliasee, as in baton-ptx
; (test/PTX/alias-call.ptx): where the aliasee reads the block index, both
; variants call its clone, which receives the virtual block
; (alias-call-weak.ll has the alias that is not followed).
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN --allow-empty
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; WARN-NOT: warning

; CHECK: define ptx_kernel void @through_alias__baton_slice(
; CHECK: call i32 @impl__baton_vb(i32 %t,
; CHECK: define ptx_kernel void @through_alias__baton_ptb(
; CHECK: call i32 @impl__baton_vb(i32 %t,

@block_of = alias i32 (i32), ptr @impl

define i32 @impl(i32 %a) {
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %s = add i32 %a, %c
  ret i32 %s
}

define ptx_kernel void @through_alias(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = call i32 @block_of(i32 %t)
  %p = getelementptr i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
