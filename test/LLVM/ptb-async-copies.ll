; A CTA may leave with asynchronous copies into shared memory (cp.async) or
; out of it (bulk stores) still running; a PTB worker reuses the shared memory
; in its next virtual block at once. So at the end of each block
; (baton.next) every thread waits for its own such copies; a kernel without
; them gets no wait.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [128 x i32] undef, align 128

define ptx_kernel void @stage_and_store(ptr addrspace(1) %src, ptr addrspace(1) %dst) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %off = mul i32 %b, 128
  %from = getelementptr i32, ptr addrspace(1) %src, i32 %off
  %to = getelementptr i32, ptr addrspace(1) %dst, i32 %off
  call void @llvm.nvvm.cp.async.cg.shared.global.16(ptr addrspace(3) @tile, ptr addrspace(1) %from)
  call void @llvm.nvvm.cp.async.wait.all()
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void @llvm.nvvm.fence.proxy.async.shared_cta()
  call void @llvm.nvvm.cp.async.bulk.shared.cta.to.global(ptr addrspace(1) %to, ptr addrspace(3) @tile, i32 512, i64 0, i1 false)
  call void @llvm.nvvm.cp.async.bulk.commit.group()
  ret void
}

; Only cp.async, as inline PTX.
define ptx_kernel void @stage_inline_asm(ptr addrspace(1) %src) {
  call void asm sideeffect "cp.async.ca.shared.global [$0], [$1], 16;", "r,l"(i32 0, ptr addrspace(1) %src)
  ret void
}

define ptx_kernel void @plain(ptr addrspace(1) %dst) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %b, ptr addrspace(1) %dst, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.cp.async.cg.shared.global.16(ptr addrspace(3), ptr addrspace(1))
declare void @llvm.nvvm.cp.async.wait.all()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @llvm.nvvm.cp.async.bulk.shared.cta.to.global(ptr addrspace(1), ptr addrspace(3), i32, i64, i1)
declare void @llvm.nvvm.cp.async.bulk.commit.group()
declare void @llvm.nvvm.fence.proxy.async.shared_cta()

; CHECK-LABEL: define ptx_kernel void @stage_and_store__baton_ptb(
; CHECK: baton.next:
; CHECK-NEXT: call void @llvm.nvvm.cp.async.wait.all()
; CHECK-NEXT: call void @llvm.nvvm.cp.async.bulk.commit.group()
; CHECK-NEXT: call void @llvm.nvvm.cp.async.bulk.wait.group.read(i32 0)
; CHECK-LABEL: define ptx_kernel void @stage_inline_asm__baton_ptb(
; CHECK: baton.next:
; CHECK-NEXT: call void @llvm.nvvm.cp.async.wait.all()
; CHECK-NOT: bulk
; CHECK: ret void
; CHECK-LABEL: define ptx_kernel void @plain__baton_ptb(
; CHECK: baton.next:
; CHECK-NOT: cp.async
; CHECK: ret void
