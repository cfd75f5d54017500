; %ctaid.w and %nctaid.w, the block index's unused fourth component, read
; the same in a variant's launch as in the original's: they are left as
; they are and the kernel gets both variants, as baton-ptx does with the
; same PTX. (The plugin used to refuse them as block-id-vector.)
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN --allow-empty
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @fourth(ptr %out) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.w()
  %nw = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.w()
  %s = add i32 %w, %nw
  %p = getelementptr i32, ptr %out, i32 %x
  store i32 %s, ptr %p, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.w()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.w()

; WARN-NOT: warning
; CHECK-LABEL: define ptx_kernel void @fourth__baton_slice(
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ctaid.w()
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.nctaid.w()
; CHECK-LABEL: define ptx_kernel void @fourth__baton_ptb(
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ctaid.w()
