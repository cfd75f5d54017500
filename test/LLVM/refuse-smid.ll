; Reading %smid (directly or in inline PTX) is refused: it differs between a
; launch and its resumption. So is %current_graph_exec, the device graph the
; launch belongs to, which a variant's launch is in none of.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @sm_probe(ptr %p) {
  %s = call i32 @llvm.nvvm.read.ptx.sreg.smid()
  store i32 %s, ptr %p
  ret void
}

define ptx_kernel void @sm_probe_asm(ptr %p) {
  %s = call i32 asm "mov.u32 $0, %nsmid;", "=r"()
  store i32 %s, ptr %p
  ret void
}

define ptx_kernel void @graph_probe_asm(ptr %p) {
  %g = call i64 asm "mov.u64 $0, %current_graph_exec;", "=l"()
  store i64 %g, ptr %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.smid()

; WARN: warning: kernel 'sm_probe' gets no variants: reads %smid, which differs between a launch and its resumption [hardware-id]
; WARN: warning: kernel 'sm_probe_asm' gets no variants: reads %nsmid, which differs between a launch and its resumption [hardware-id]
; WARN: warning: kernel 'graph_probe_asm' gets no variants: reads %current_graph_exec, the device graph the launch belongs to, which a variant's launch (made by the scheduler, in no graph) does not reproduce [hardware-id]
; CHECK-LABEL: define ptx_kernel void @sm_probe(
; CHECK-NOT: @sm_probe__baton_slice
; CHECK-NOT: @sm_probe__baton_ptb
; CHECK-LABEL: define ptx_kernel void @sm_probe_asm(
; CHECK-NOT: @sm_probe_asm__baton_slice
; CHECK-NOT: @sm_probe_asm__baton_ptb
; CHECK-LABEL: define ptx_kernel void @graph_probe_asm(
; CHECK-NOT: @graph_probe_asm__baton
