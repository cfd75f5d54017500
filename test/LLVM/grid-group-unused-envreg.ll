; cooperative_groups' grid_group reads %envreg in its constructor (inline
; asm without side effects); where the grid is never synchronised
; (cg::this_grid().thread_rank() as a global index) the result is unused
; and the back end drops the asm, so the PTX reads no %envreg and baton-ptx
; gives variants. The plugin does too: an asm whose only effect is a result
; nobody uses cannot make a variant differ. Used, it still refuses
; (refuse-grid-sync.ll).
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN --allow-empty
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90 %t.ll -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @grid_rank(ptr %out) {
  %lo = call i32 asm "mov.u32 $0, %envreg2;", "=r"()
  %hi = call i32 asm "mov.u32 $0, %envreg1;", "=r"()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %p = getelementptr i32, ptr %out, i32 %b
  store i32 %b, ptr %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; WARN-NOT: warning
; CHECK: define ptx_kernel void @grid_rank__baton_slice(
; CHECK: define ptx_kernel void @grid_rank__baton_ptb(
