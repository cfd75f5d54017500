; A Blackwell kernel that gives up the CTA's permit to allocate tensor memory
; after allocating it: a PTB worker's next virtual block could not allocate
; again. PTB refused, slice kept, through the intrinsic and through inline PTX.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_100a -mattr=+ptx87 %t.ll -o %t.ptx && %ptxas-path -arch=sm_100a %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@base = internal addrspace(3) global i32 undef, align 4

define ptx_kernel void @tmem_intrinsic(ptr %out) #0 {
  call void @llvm.nvvm.tcgen05.alloc.shared.cg1(ptr addrspace(3) @base, i32 32)
  call void @llvm.nvvm.tcgen05.relinq.alloc.permit.cg1()
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %t = load i32, ptr addrspace(3) @base, align 4
  store i32 %t, ptr %out, align 4
  %taddr = inttoptr i32 %t to ptr addrspace(6)
  call void @llvm.nvvm.tcgen05.dealloc.cg1(ptr addrspace(6) %taddr, i32 32)
  ret void
}

define ptx_kernel void @tmem_inline_asm(ptr %out) #0 {
  call void asm sideeffect "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", ""()
  store i32 1, ptr %out, align 4
  ret void
}

declare void @llvm.nvvm.tcgen05.alloc.shared.cg1(ptr addrspace(3), i32)
declare void @llvm.nvvm.tcgen05.relinq.alloc.permit.cg1()
declare void @llvm.nvvm.tcgen05.dealloc.cg1(ptr addrspace(6), i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)

attributes #0 = { "nvvm.maxntid"="32" }

; WARN-DAG: warning: kernel 'tmem_intrinsic' gets no ptb variant: gives up the CTA's permit to allocate tensor memory (tcgen05.relinquish_alloc_permit), after which a PTB worker could not allocate it for its next virtual block [tensor-memory-permit]
; WARN-DAG: warning: kernel 'tmem_inline_asm' gets no ptb variant: gives up the CTA's permit to allocate tensor memory (tcgen05.relinquish_alloc_permit), after which a PTB worker could not allocate it for its next virtual block [tensor-memory-permit]
; CHECK-LABEL: define ptx_kernel void @tmem_intrinsic(
; CHECK: define ptx_kernel void @tmem_intrinsic__baton_slice(
; CHECK-NOT: @tmem_intrinsic__baton_ptb
; CHECK: define ptx_kernel void @tmem_inline_asm__baton_slice(
; CHECK-NOT: @tmem_inline_asm__baton_ptb
