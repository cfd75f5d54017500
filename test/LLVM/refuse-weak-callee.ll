; A callee with weak (or linkonce, common) linkage may be replaced, when
; modules are linked (clang -fgpu-rdc), by another module's definition,
; which may read the block index: the body checked here need not be the one
; that runs, so the kernel is refused. ODR linkage (templates, inline
; functions: linkonce_odr) promises the same body everywhere.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas -c %t.ptx -o %t.o
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define weak i32 @replaceable(i32 %v) noinline {
  ret i32 %v
}

define linkonce_odr i32 @same_everywhere(i32 %v) noinline {
  ret i32 %v
}

define ptx_kernel void @calls_weak(ptr %p) {
  %a = call i32 @replaceable(i32 1)
  store i32 %a, ptr %p
  ret void
}

define ptx_kernel void @calls_odr(ptr %p) {
  %a = call i32 @same_everywhere(i32 1)
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %s = add i32 %a, %b
  store i32 %s, ptr %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN: warning: kernel 'calls_weak' gets no variants (in function 'replaceable'): reaches 'replaceable', whose linkage lets another module's definition replace it when linked, so the body checked here need not be the one that runs [external-call]
; WARN-NOT: calls_odr
; CHECK-NOT: @calls_weak__baton
; CHECK: define ptx_kernel void @calls_odr__baton_slice(
; CHECK: define ptx_kernel void @calls_odr__baton_ptb(
