; %ctaid read inside inline PTX cannot be virtualised: refused.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @asm_ctaid(ptr %p) {
  %x = call i32 asm "mov.u32 $0, %ctaid.x;", "=r"()
  store i32 %x, ptr %p
  ret void
}

; WARN: warning: kernel 'asm_ctaid' gets no variants: reads %ctaid or %nctaid in inline assembly, which cannot be virtualised [block-id-vector]
; CHECK-LABEL: define ptx_kernel void @asm_ctaid(
; CHECK-NOT: @asm_ctaid__baton_slice
; CHECK-NOT: @asm_ctaid__baton_ptb
