; Bulk copies into a peer CTA's shared memory and tensor memory of a CTA pair
; (cg2) need the peer CTA of a cluster: both variants refused, through the
; intrinsics and through inline PTX. A CTA's own tensor memory (cg1, no
; permit given up) keeps both variants.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_100a -mattr=+ptx87 %t.ll -o %t.ptx && %ptxas-path -arch=sm_100a %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [4 x i32] undef, align 16
@bar = internal addrspace(3) global i64 0, align 8
@base = internal addrspace(3) global i32 0, align 4

define ptx_kernel void @copy_to_peer(ptr addrspace(7) %peer) {
  call void @llvm.nvvm.cp.async.bulk.shared.cta.to.cluster(ptr addrspace(7) %peer, ptr addrspace(3) @bar, ptr addrspace(3) @tile, i32 16)
  ret void
}

define ptx_kernel void @pair_alloc() {
  call void @llvm.nvvm.tcgen05.alloc.shared.cg2(ptr addrspace(3) @base, i32 32)
  ret void
}

define ptx_kernel void @pair_inline_asm() {
  call void asm sideeffect "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;", ""()
  ret void
}

define ptx_kernel void @own_alloc(ptr %out) {
  call void @llvm.nvvm.tcgen05.alloc.shared.cg1(ptr addrspace(3) @base, i32 32)
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %b, ptr %out, align 4
  ret void
}

declare void @llvm.nvvm.cp.async.bulk.shared.cta.to.cluster(ptr addrspace(7), ptr addrspace(3), ptr addrspace(3), i32)
declare void @llvm.nvvm.tcgen05.alloc.shared.cg2(ptr addrspace(3), i32)
declare void @llvm.nvvm.tcgen05.alloc.shared.cg1(ptr addrspace(3), i32)
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN-DAG: warning: kernel 'copy_to_peer' gets no variants: uses thread-block clusters ('cp.async.bulk.shared.cta.to.cluster') [cluster]
; WARN-DAG: warning: kernel 'pair_alloc' gets no variants: uses thread-block clusters ('tcgen05.alloc.shared.cg2') [cluster]
; WARN-DAG: warning: kernel 'pair_inline_asm' gets no variants: uses thread-block clusters or cluster launch control in inline assembly [cluster]
; WARN-NOT: own_alloc
; CHECK: define ptx_kernel void @own_alloc__baton_slice(
; CHECK: define ptx_kernel void @own_alloc__baton_ptb(
; CHECK-NOT: @copy_to_peer__baton
; CHECK-NOT: @pair_alloc__baton
; CHECK-NOT: @pair_inline_asm__baton
