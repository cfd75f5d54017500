; PTB slots and the leader's claim live in the last 48 bytes (16-aligned) of
; dynamic shared memory, which the PTB launch enlarges by
; BATON_PTB_DYNAMIC_SHARED_BYTES (64); the body's own %dynamic_smem_size
; reads see the original size, also where CUDA code reads it with
; asm("mov.u32 %0, %%dynamic_smem_size;"). The slice variant reads the
; register unchanged.
; RUN: %opt -passes=baton-variants %s -S | FileCheck %s
; RUN: %opt -passes=baton-variants %s -o %t.bc
; RUN: %llc -mcpu=sm_90a %t.bc -o %t.ptx && %ptxas %t.ptx -o /dev/null
; Triton's data layout (no 32-bit shared pointers in it) with llc's
; -nvptx-short-ptr, as Triton runs it: the slot's address does not depend
; on which width the pointer has (an llvm.ptrmask did, and llc rejected it).
; RUN: sed -e 's/^target datalayout = .*/target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"/' %s | %opt -passes=baton-variants -o %t.short.bc
; RUN: %llc -mcpu=sm_90a -nvptx-short-ptr %t.short.bc -o %t.short.ptx && %ptxas %t.short.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@buf = external addrspace(3) global [0 x float], align 16

define ptx_kernel void @uses_dyn(ptr %p) {
  %s = call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
  %v = load float, ptr addrspace(3) @buf
  store i32 %s, ptr %p
  ret void
}

define ptx_kernel void @asm_dyn(ptr %p) {
  %s = call i32 asm "mov.u32 $0, %dynamic_smem_size;", "=r"()
  store i32 %s, ptr %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()

; CHECK: @baton_dynamic_smem = external addrspace(3) global [0 x i8], align 16
; CHECK-LABEL: define ptx_kernel void @uses_dyn__baton_slice(
; CHECK: %s = call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
; CHECK: store i32 %s, ptr %p
; CHECK-LABEL: define ptx_kernel void @uses_dyn__baton_ptb(
; CHECK: %baton.dsmem = call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
; CHECK-NEXT: [[OFF:%.*]] = sub i32 %baton.dsmem, 64
; CHECK-NEXT: [[ALIGNED:%.*]] = and i32 [[OFF]], -16
; CHECK-NEXT: %baton.slot = getelementptr i8, ptr addrspace(3) @baton_dynamic_smem, i32 [[ALIGNED]]
; CHECK-NEXT: %baton.claim.addr = getelementptr inbounds i8, ptr addrspace(3) %baton.slot, i32 32
; CHECK-NEXT: %baton.view.addr = getelementptr inbounds i8, ptr addrspace(3) %baton.slot, i32 40
; CHECK-NEXT: %baton.grid.addr = getelementptr inbounds i8, ptr addrspace(3) %baton.slot, i32 48
; CHECK-NEXT: %baton.body.dsmem = sub i32 %baton.dsmem, 80
; CHECK: store <4 x i32> {{.*}}, ptr addrspace(3) {{.*}}, align 16
; CHECK: load <4 x i32>, ptr addrspace(3) {{.*}}, align 16
; CHECK-NOT: sreg.dynamic_smem_size
; CHECK: store i32 %baton.body.dsmem, ptr %p
; CHECK-LABEL: define ptx_kernel void @asm_dyn__baton_slice(
; CHECK: %s = call i32 asm "mov.u32 $0, %dynamic_smem_size;", "=r"()
; CHECK-LABEL: define ptx_kernel void @asm_dyn__baton_ptb(
; CHECK: %baton.body.dsmem = sub i32 %baton.dsmem, 80
; CHECK-NOT: asm "mov.u32 $0, %dynamic_smem_size;"
; CHECK: store i32 %baton.body.dsmem, ptr %p
