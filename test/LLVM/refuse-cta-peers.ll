; Bulk copies into a peer CTA's shared memory and tensor memory of a CTA pair
; (cg2) need the peer CTA of a cluster: both variants refused, through the
; intrinsics and through inline PTX. So do copies that multicast to the
; cluster's CTAs, whether the intrinsic's name says so (`.mc`) or its
; multicast flag does, and tensor copies for a CTA pair (cta_group 2). A
; CTA's own tensor memory (cg1, no permit given up), and copies into the
; CTA's own shared memory with the multicast flag false (cta_group 0 or 1),
; keep both variants.
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

define ptx_kernel void @multicast_flag(ptr addrspace(7) %dst, ptr addrspace(1) %src, i16 %mask) {
  call void @llvm.nvvm.cp.async.bulk.global.to.shared.cluster(ptr addrspace(7) %dst, ptr addrspace(3) @bar, ptr addrspace(1) %src, i32 16, i16 %mask, i64 0, i1 true, i1 false)
  ret void
}

define ptx_kernel void @tensor_pair(ptr addrspace(7) %dst, ptr %map, i32 %x) {
  call void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.1d(ptr addrspace(7) %dst, ptr addrspace(3) @bar, ptr %map, i32 %x, i16 0, i64 0, i1 false, i1 false, i32 2)
  ret void
}

define ptx_kernel void @commit_multicast(i16 %mask) {
  call void @llvm.nvvm.tcgen05.commit.mc.shared.cg1(ptr addrspace(3) @bar, i16 %mask)
  ret void
}

define ptx_kernel void @own_copy(ptr addrspace(7) %dst, ptr addrspace(1) %src, ptr %map, ptr %out) {
  call void @llvm.nvvm.cp.async.bulk.global.to.shared.cluster(ptr addrspace(7) %dst, ptr addrspace(3) @bar, ptr addrspace(1) %src, i32 16, i16 0, i64 0, i1 false, i1 false)
  call void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.1d(ptr addrspace(7) %dst, ptr addrspace(3) @bar, ptr %map, i32 0, i16 0, i64 0, i1 false, i1 false, i32 0)
  call void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.1d(ptr addrspace(7) %dst, ptr addrspace(3) @bar, ptr %map, i32 0, i16 0, i64 0, i1 false, i1 false, i32 1)
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %b, ptr %out, align 4
  ret void
}

declare void @llvm.nvvm.cp.async.bulk.global.to.shared.cluster(ptr addrspace(7), ptr addrspace(3), ptr addrspace(1), i32, i16, i64, i1, i1)
declare void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.1d(ptr addrspace(7), ptr addrspace(3), ptr, i32, i16, i64, i1, i1, i32)
declare void @llvm.nvvm.tcgen05.commit.mc.shared.cg1(ptr addrspace(3), i16)
declare void @llvm.nvvm.cp.async.bulk.shared.cta.to.cluster(ptr addrspace(7), ptr addrspace(3), ptr addrspace(3), i32)
declare void @llvm.nvvm.tcgen05.alloc.shared.cg2(ptr addrspace(3), i32)
declare void @llvm.nvvm.tcgen05.alloc.shared.cg1(ptr addrspace(3), i32)
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN-DAG: warning: kernel 'copy_to_peer' gets no variants: uses thread-block clusters ('cp.async.bulk.shared.cta.to.cluster') [cluster]
; WARN-DAG: warning: kernel 'pair_alloc' gets no variants: uses thread-block clusters ('tcgen05.alloc.shared.cg2') [cluster]
; WARN-DAG: warning: kernel 'pair_inline_asm' gets no variants: uses thread-block clusters or cluster launch control in inline assembly [cluster]
; WARN-DAG: warning: kernel 'multicast_flag' gets no variants: uses thread-block clusters ('cp.async.bulk.global.to.shared.cluster') [cluster]
; WARN-DAG: warning: kernel 'tensor_pair' gets no variants: uses thread-block clusters ('cp.async.bulk.tensor.g2s.tile.1d') [cluster]
; WARN-DAG: warning: kernel 'commit_multicast' gets no variants: uses thread-block clusters ('tcgen05.commit.mc.shared.cg1') [cluster]
; WARN-NOT: own_alloc
; WARN-NOT: own_copy
; CHECK: define ptx_kernel void @own_alloc__baton_slice(
; CHECK: define ptx_kernel void @own_alloc__baton_ptb(
; CHECK-NOT: @copy_to_peer__baton
; CHECK-NOT: @pair_alloc__baton
; CHECK-NOT: @pair_inline_asm__baton
; CHECK-NOT: @multicast_flag__baton
; CHECK-NOT: @tensor_pair__baton
; CHECK-NOT: @commit_multicast__baton
; CHECK: define ptx_kernel void @own_copy__baton_slice(
; CHECK: define ptx_kernel void @own_copy__baton_ptb(
