; Thread-block clusters (cluster registers, cluster barriers, cluster launch
; attributes) describe the physical launch: refused.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @cluster_rank(ptr %p) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.cluster.ctarank()
  store i32 %r, ptr %p
  ret void
}

define ptx_kernel void @cluster_wait(ptr %p) {
  call void @llvm.nvvm.barrier.cluster.arrive()
  call void @llvm.nvvm.barrier.cluster.wait()
  ret void
}

define ptx_kernel void @cluster_dims(ptr %p) #0 {
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.cluster.ctarank()
declare void @llvm.nvvm.barrier.cluster.arrive()
declare void @llvm.nvvm.barrier.cluster.wait()

attributes #0 = { "nvvm.cluster_dim"="2,1,1" }

; WARN: warning: kernel 'cluster_rank' gets no variants: reads the cluster register %cluster_ctarank [cluster]
; WARN: warning: kernel 'cluster_wait' gets no variants: uses thread-block clusters ('barrier.cluster.arrive') [cluster]
; WARN: warning: kernel 'cluster_dims' gets no variants: is declared with nvvm.cluster_dim (cluster launch) [cluster]
; CHECK-LABEL: define ptx_kernel void @cluster_rank(
; CHECK-NOT: @cluster_rank__baton_slice
; CHECK-NOT: @cluster_rank__baton_ptb
; CHECK-LABEL: define ptx_kernel void @cluster_wait(
; CHECK-NOT: @cluster_wait__baton_slice
; CHECK-NOT: @cluster_wait__baton_ptb
; CHECK-LABEL: define ptx_kernel void @cluster_dims(
; CHECK-NOT: @cluster_dims__baton_slice
; CHECK-NOT: @cluster_dims__baton_ptb
