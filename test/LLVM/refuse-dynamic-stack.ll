; An alloca the PTB variant cannot move out of its loop (one of a size not
; known at compile time, or outside the entry block) would take more stack
; in every virtual block: only the kernel's return gives it back, and a PTB
; worker returns once, after all its blocks. No PTB variant; the slice
; variant is made. The entry block's allocas of constant size are moved out
; of the loop, and a callee's alloca is given back when it returns: those
; kernels keep both variants.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: not grep -E '@(vla|alloca_after_entry)__baton_ptb\(' %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @vla(ptr %out, i32 %n) {
  %buf = alloca i32, i32 %n, align 4
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store volatile i32 %b, ptr %buf, align 4
  %v = load volatile i32, ptr %buf, align 4
  store i32 %v, ptr %out, align 4
  ret void
}

define ptx_kernel void @alloca_after_entry(ptr %out, i1 %c) {
entry:
  br i1 %c, label %use, label %done
use:
  %buf = alloca [4 x i32], align 4
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store volatile i32 %b, ptr %buf, align 4
  %v = load volatile i32, ptr %buf, align 4
  store i32 %v, ptr %out, align 4
  br label %done
done:
  ret void
}

define ptx_kernel void @fixed_size(ptr %out) {
  %buf = alloca [4 x i32], align 4
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store volatile i32 %b, ptr %buf, align 4
  %v = load volatile i32, ptr %buf, align 4
  store i32 %v, ptr %out, align 4
  ret void
}

define internal i32 @scratch(i32 %n, i32 %x) noinline {
  %buf = alloca i32, i32 %n, align 4
  store volatile i32 %x, ptr %buf, align 4
  %v = load volatile i32, ptr %buf, align 4
  ret i32 %v
}

define ptx_kernel void @vla_in_callee(ptr %out, i32 %n) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %v = call i32 @scratch(i32 %n, i32 %b)
  store i32 %v, ptr %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN: warning: kernel 'vla' gets no ptb variant: allocates stack memory at run time (alloca) in the kernel body; only the kernel's return gives it back, and a PTB worker runs the body once per virtual block without returning, so its stack would grow with every block until it overflows [dynamic-stack]
; WARN: warning: kernel 'alloca_after_entry' gets no ptb variant: {{.*}} [dynamic-stack]
; WARN-NOT: fixed_size
; WARN-NOT: vla_in_callee
; CHECK-DAG: define ptx_kernel void @vla__baton_slice(
; CHECK-DAG: define ptx_kernel void @alloca_after_entry__baton_slice(
; CHECK-DAG: define ptx_kernel void @fixed_size__baton_ptb(
; CHECK-DAG: define ptx_kernel void @vla_in_callee__baton_ptb(
