; setmaxnreg would run again in every virtual block of a PTB worker: PTB
; refused, slice kept.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @warp_specialised(ptr %p) #0 {
  call void @llvm.nvvm.setmaxnreg.inc.sync.aligned.u32(i32 240)
  ret void
}

declare void @llvm.nvvm.setmaxnreg.inc.sync.aligned.u32(i32)

attributes #0 = { "nvvm.maxntid"="128" }

; WARN: warning: kernel 'warp_specialised' gets no ptb variant: reallocates registers with setmaxnreg, which a PTB worker would repeat in every virtual block [register-reallocation]
; CHECK-LABEL: define ptx_kernel void @warp_specialised(
; CHECK: define ptx_kernel void @warp_specialised__baton_slice(
; CHECK-NOT: @warp_specialised__baton_ptb
