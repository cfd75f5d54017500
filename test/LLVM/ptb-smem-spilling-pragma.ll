; `.pragma "enable_smem_spilling";` in a kernel's inline asm, as CUDA 13
; code writes it: ptxas rejects it beside dynamic shared memory, which every
; PTB variant uses, so the PTB variant's asm leaves it out and keeps the rest
; of its text, as baton-ptx does (test/PTX/ptb-smem-spilling-pragma.ptx).
; The original and the slice variant keep it; the module assembles.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN --allow-empty
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90 -mattr=+ptx87 %t.ll -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; WARN-NOT: warning

; CHECK: define ptx_kernel void @k(
; CHECK: asm sideeffect ".pragma \22enable_smem_spilling\22;"
; CHECK: asm sideeffect "membar.cta;\0A\09.pragma \22enable_smem_spilling\22;"
; CHECK: asm sideeffect ".pragma \22nounroll\22, \22enable_smem_spilling\22;"
; CHECK: define ptx_kernel void @k__baton_slice(
; CHECK: asm sideeffect ".pragma \22enable_smem_spilling\22;"
; CHECK: define ptx_kernel void @k__baton_ptb(
; CHECK-NOT: enable_smem_spilling
; CHECK: asm sideeffect "membar.cta;\0A\09"
; CHECK: asm sideeffect ".pragma \22nounroll\22;"
; CHECK-NOT: enable_smem_spilling
; CHECK: ret void

define ptx_kernel void @k(ptr %out) {
  call void asm sideeffect ".pragma \22enable_smem_spilling\22;", ""()
  call void asm sideeffect "membar.cta;\0A\09.pragma \22enable_smem_spilling\22;", ""()
  call void asm sideeffect ".pragma \22nounroll\22, \22enable_smem_spilling\22;", ""()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %p = getelementptr i32, ptr %out, i32 %c
  store i32 %c, ptr %p, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
