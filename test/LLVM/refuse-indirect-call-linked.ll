; Separate compilation (clang -fgpu-rdc): the kernel calls through a pointer
; that another module defines. Nothing here reads the block index, but the
; pointer may lead into that module's code, which may: no variants. (In a
; whole program the call is judged by the targets it can see:
; refuse-indirect-call.ll.)
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: not grep __baton_ %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas -c %t.ptx -o %t.o
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@fp = external addrspace(1) global ptr

define ptx_kernel void @dispatch(ptr addrspace(1) %out) {
  %f = load ptr, ptr addrspace(1) @fp
  %v = call i32 %f()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %b
  store i32 %v, ptr addrspace(1) %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN: warning: kernel 'dispatch' gets no variants: makes an indirect call in a module linked with others ('fp' is declared here and defined elsewhere), so the call may reach code that cannot be checked [external-call]
