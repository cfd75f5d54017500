; A block-index read in inline PTX that is exactly one 32-bit move into the
; result (`mov.u32 $0, %ctaid.x;`, as Triton up to 3.2 and hand-written
; CUDA read it) is a read like the intrinsic's: the variants replace it by
; the virtual value, in the kernel and in the clone of a callee. Any other
; inline PTX that reads %ctaid or %nctaid cannot be virtualised: refused.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @asm_ctaid(ptr %p) {
  %x = call i32 asm "mov.u32 $0, %ctaid.x;", "=r"()
  %n = call i32 asm sideeffect "mov.b32 $0, %nctaid.y;", "=r"()
  %s = add i32 %x, %n
  store i32 %s, ptr %p
  ret void
}

define internal i32 @block_y() noinline {
  %y = call i32 asm "mov.u32 $0, %ctaid.y;", "=r"()
  ret i32 %y
}

define ptx_kernel void @asm_ctaid_in_callee(ptr %p) {
  %y = call i32 @block_y()
  store i32 %y, ptr %p
  ret void
}

; An asm goto (callbr) is not a call the variants rewrite: refused, though
; its PTX is the same one move.
define ptx_kernel void @asm_goto_ctaid(ptr %p) {
entry:
  %x = callbr i32 asm "mov.u32 $0, %ctaid.x;", "=r,!i"()
          to label %fall [label %skip]
fall:
  store i32 %x, ptr %p
  br label %skip
skip:
  ret void
}

define ptx_kernel void @asm_ctaid_compound(ptr %p) {
  %x = call i32 asm "{ .reg .u32 t; mov.u32 t, %ctaid.x; add.u32 $0, t, 1; }", "=r"()
  store i32 %x, ptr %p
  ret void
}

; WARN-NOT: 'asm_ctaid'
; WARN-NOT: 'asm_ctaid_in_callee'
; WARN: warning: kernel 'asm_goto_ctaid' gets no variants: reads %ctaid or %nctaid in inline assembly other than one move of a component into the result, which cannot be virtualised [block-id-vector]
; WARN: warning: kernel 'asm_ctaid_compound' gets no variants: reads %ctaid or %nctaid in inline assembly other than one move of a component into the result, which cannot be virtualised [block-id-vector]
; CHECK-LABEL: define ptx_kernel void @asm_ctaid(
; CHECK: asm "mov.u32 $0, %ctaid.x;"
; CHECK-LABEL: define internal i32 @block_y(
; CHECK: asm "mov.u32 $0, %ctaid.y;"
; CHECK-NOT: @asm_goto_ctaid__baton
; CHECK-NOT: @asm_ctaid_compound__baton
; CHECK-LABEL: define ptx_kernel void @asm_ctaid__baton_slice(
; CHECK: %s = add i32 %baton.ctaid.x, %baton.nctaid.y
; CHECK-LABEL: define ptx_kernel void @asm_ctaid__baton_ptb(
; CHECK-LABEL: define internal i32 @block_y__baton_vb(
; CHECK-NEXT: ret i32 %baton.ctaid.y
; CHECK-LABEL: define ptx_kernel void @asm_ctaid_in_callee__baton_slice(
; CHECK: call i32 @block_y__baton_vb(
; No variant or clone reads the block index through asm:
; RUN: sed -n '/^define.*__baton_/,$p' %t.ll | FileCheck %s --check-prefix=VARIANTS
; VARIANTS-NOT: asm {{.*}}ctaid
