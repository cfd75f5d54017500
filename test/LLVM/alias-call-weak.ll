; An alias that another module may replace when linked (weak: in
; -fgpu-rdc builds device IR is linked before code generation) is not
; followed to its aliasee: the call stays an indirect one, and the kernel
; is refused, since the aliasee reads the block index. (The NVPTX back end
; takes no weak alias, so no PTX is made here.)
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s
; RUN: FileCheck %s --check-prefix=IR < %t.ll
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK: warning: kernel 'through_weak_alias' gets no variants: calls 'weak_block_of', an alias that another module may replace, as an indirect call, and 'impl', whose address is taken, reads the block index [indirect-call]
; IR-NOT: @through_weak_alias__baton

@weak_block_of = weak alias i32 (i32), ptr @impl

define i32 @impl(i32 %a) {
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %s = add i32 %a, %c
  ret i32 %s
}

define ptx_kernel void @through_weak_alias(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = call i32 @weak_block_of(i32 %t)
  %p = getelementptr i32, ptr %out, i32 %t
  store i32 %v, ptr %p, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
