; %total_smem_size and %aggr_smem_size are rounded to the allocation unit
; (the latter read in inline PTX: LLVM 22 cannot select its intrinsic), and
; neither a callee's
; %dynamic_smem_size nor one read by inline PTX that does more than move it
; can be corrected: PTB refused, slice kept.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a -mattr=+ptx81 %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @total(ptr %p) {
  %s = call i32 @llvm.nvvm.read.ptx.sreg.total_smem_size()
  store i32 %s, ptr %p
  ret void
}

define ptx_kernel void @aggr_in_asm(ptr %p) {
  %s = call i32 asm "mov.u32 $0, %aggr_smem_size;", "=r"()
  store i32 %s, ptr %p
  ret void
}

define i32 @dyn_size() {
  %s = call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
  ret i32 %s
}

define ptx_kernel void @dyn_in_callee(ptr %p) {
  %s = call i32 @dyn_size()
  store i32 %s, ptr %p
  ret void
}

define ptx_kernel void @dyn_in_asm(ptr %p) {
  %s = call i32 asm "{ .reg .b32 t; mov.u32 t, %dynamic_smem_size; shr.u32 $0, t, 2; }", "=r"()
  store i32 %s, ptr %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.total_smem_size()
declare i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()

; WARN: warning: kernel 'total' gets no ptb variant: reads %total_smem_size, which a PTB launch changes [shared-memory-size]
; WARN: warning: kernel 'aggr_in_asm' gets no ptb variant: reads %aggr_smem_size, which a PTB launch changes [shared-memory-size]
; WARN: warning: kernel 'dyn_in_callee' gets no ptb variant (in function 'dyn_size'): reads %dynamic_smem_size inside a device function, which a PTB launch changes [shared-memory-size]
; WARN: warning: kernel 'dyn_in_asm' gets no ptb variant: reads %dynamic_smem_size in inline assembly other than a lone mov, which a PTB launch changes and cannot be corrected there [shared-memory-size]
; CHECK-LABEL: define ptx_kernel void @total(
; CHECK-LABEL: define ptx_kernel void @dyn_in_callee(
; CHECK-LABEL: define ptx_kernel void @total__baton_slice(
; CHECK-LABEL: define ptx_kernel void @aggr_in_asm__baton_slice(
; CHECK-LABEL: define ptx_kernel void @dyn_in_callee__baton_slice(
; CHECK-LABEL: define ptx_kernel void @dyn_in_asm__baton_slice(
; CHECK-NOT: __baton_ptb
