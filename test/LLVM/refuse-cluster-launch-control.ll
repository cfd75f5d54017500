; Cluster launch control hands a kernel the ids of CTAs it cancelled, which
; in a variant are the variant's own CTAs: both variants refused, through the
; intrinsics and through inline PTX. The kernels sketch the calls (they do
; not wait for the response); they are compiled, not run.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_100a -mattr=+ptx87 %t.ll -o %t.ptx && %ptxas-path -arch=sm_100a %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@response = internal addrspace(3) global i128 0, align 16
@bar = internal addrspace(3) global i64 0, align 8

define ptx_kernel void @clc_intrinsic(ptr %out) {
  call void @llvm.nvvm.clusterlaunchcontrol.try_cancel.async.shared(ptr addrspace(3) @response, ptr addrspace(3) @bar)
  %r = load i128, ptr addrspace(3) @response, align 16
  %id = call i32 @llvm.nvvm.clusterlaunchcontrol.query_cancel.get_first_ctaid.x(i128 %r)
  store i32 %id, ptr %out, align 4
  ret void
}

define ptx_kernel void @clc_inline_asm(ptr %out) {
  call void asm sideeffect "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [$0], [$1];", "r,r"(i32 0, i32 16)
  store i32 1, ptr %out, align 4
  ret void
}

declare void @llvm.nvvm.clusterlaunchcontrol.try_cancel.async.shared(ptr addrspace(3), ptr addrspace(3))
declare i32 @llvm.nvvm.clusterlaunchcontrol.query_cancel.get_first_ctaid.x(i128)

; WARN-DAG: warning: kernel 'clc_intrinsic' gets no variants: takes over CTAs of its launch with cluster launch control ('clusterlaunchcontrol.try_cancel.async.shared'), whose CTA ids are the variant's, not the original's [cluster]
; WARN-DAG: warning: kernel 'clc_inline_asm' gets no variants: uses thread-block clusters or cluster launch control in inline assembly [cluster]
; CHECK: define ptx_kernel void @clc_intrinsic(
; CHECK: define ptx_kernel void @clc_inline_asm(
; CHECK-NOT: __baton_
