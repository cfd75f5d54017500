; Grid-wide synchronisation is refused: clang reaches the cooperative-launch
; grid workspace through inline PTX reading %envreg, older code through
; cudaCG* calls. Neither kernel gets a variant; the module still assembles.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas -c %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @grid_sync(ptr %p) {
  %lo = call i32 asm "mov.u32 $0, %envreg2;", "=r"()
  store i32 %lo, ptr %p
  ret void
}

define ptx_kernel void @cg_handle(ptr %p) {
  %h = call i64 @cudaCGGetIntrinsicHandle(i32 1)
  store i64 %h, ptr %p
  ret void
}

declare i64 @cudaCGGetIntrinsicHandle(i32)

; WARN: warning: kernel 'grid_sync' gets no variants: reads %envreg in inline assembly, which the driver sets for each launch (cooperative groups keep the grid-wide synchronisation workspace there) and a variant's launch does not reproduce [grid-sync]
; WARN: warning: kernel 'cg_handle' gets no variants: calls cudaCGGetIntrinsicHandle (cooperative groups grid synchronisation) [grid-sync]
; CHECK-LABEL: define ptx_kernel void @grid_sync(
; CHECK-NOT: @grid_sync__baton_slice
; CHECK-NOT: @grid_sync__baton_ptb
; CHECK-LABEL: define ptx_kernel void @cg_handle(
; CHECK-NOT: @cg_handle__baton_slice
; CHECK-NOT: @cg_handle__baton_ptb
