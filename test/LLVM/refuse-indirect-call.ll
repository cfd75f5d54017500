; An indirect call may reach any address-taken function; if one of them
; reads the block index, the call cannot be virtualised: refused. Indirect
; calls whose possible targets do not read it are fine.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@table = addrspace(1) global ptr @reads_ctaid

define i32 @reads_ctaid() {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %x
}

define ptx_kernel void @dispatch(ptr %p) {
  %f = load ptr, ptr addrspace(1) @table
  %v = call i32 %f()
  store i32 %v, ptr %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN: warning: kernel 'dispatch' gets no variants: makes an indirect call, and 'reads_ctaid', whose address is taken, reads the block index [indirect-call]
; CHECK-LABEL: define ptx_kernel void @dispatch(
; CHECK-NOT: @dispatch__baton_slice
; CHECK-NOT: @dispatch__baton_ptb
