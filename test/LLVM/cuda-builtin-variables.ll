; At -O0 clang declares CUDA's blockIdx, threadIdx, blockDim as extern_weak
; globals of its __cuda_builtin_*_t types, which no module defines (the
; back end reads special registers for them). They do not make the module
; one linked with others: an indirect call to a function defined here is
; judged by its targets, and the kernel gets both variants, as baton-ptx
; gives it from the same PTX. A real external declaration still counts
; (refuse-indirect-call-linked.ll).
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN --allow-empty
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90 %t.ll -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.__cuda_builtin_blockIdx_t = type { i8 }

@blockIdx = extern_weak addrspace(1) global %struct.__cuda_builtin_blockIdx_t, align 1
@op = addrspace(1) global ptr @twice

define i32 @twice(i32 %x) {
  %y = shl i32 %x, 1
  ret i32 %y
}

define ptx_kernel void @apply(ptr %out) {
  %keep = load i8, ptr addrspacecast (ptr addrspace(1) @blockIdx to ptr)
  %f = load ptr, ptr addrspace(1) @op
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %v = call i32 %f(i32 %b)
  %p = getelementptr i32, ptr %out, i32 %b
  store i32 %v, ptr %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN-NOT: warning
; CHECK: define ptx_kernel void @apply__baton_slice(
; CHECK: define ptx_kernel void @apply__baton_ptb(
