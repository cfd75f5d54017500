; The variants append an 8-byte task pointer to a kernel's parameters. A
; kernel whose parameters fit ptxas's limit only without it gets no
; variants, or the module would not assemble: 32,764 bytes from PTX 8.1 on
; sm_70 and later (read from the "+ptxNN" feature and the CPU clang sets),
; 4,096 otherwise. A byval aggregate counts at its own size and alignment.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: not grep -E '@(big_old|big_new)__baton' %t.ll
; RUN: %llc -mcpu=sm_90a -mattr=+ptx81 %t.ll -o %t.ptx
; RUN: %ptxas-path -arch=sm_90a %t.ptx -o %t.cubin
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%small = type { [4080 x i8] }
%old_over = type { [4081 x i8] }
%large = type { [32744 x i8] }
%new_over = type { [32745 x i8] }

; No PTX version said: the 4,096-byte limit. 8 + 4080 fits with the task
; pointer (4096); 8 + 4081 does not (4104).
define ptx_kernel void @small_old(ptr %out, ptr byval(%small) align 4 %blob) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %b, ptr %out, align 4
  ret void
}

define ptx_kernel void @big_old(ptr %out, ptr byval(%old_over) align 4 %blob) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %b, ptr %out, align 4
  ret void
}

; PTX 8.1 for sm_90: the 32,764-byte limit.
define ptx_kernel void @large_new(ptr %out, ptr byval(%large) align 4 %blob) #0 {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %b, ptr %out, align 4
  ret void
}

define ptx_kernel void @big_new(ptr %out, ptr byval(%new_over) align 4 %blob) #0 {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %b, ptr %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

attributes #0 = { "target-cpu"="sm_90a" "target-features"="+ptx81,+sm_90a" }

; WARN-DAG: warning: kernel 'big_old' gets no variants: takes 4089 bytes of parameters; with the variants' 8-byte task pointer after them that is 4104, more than the 4096 bytes a kernel of its PTX version and target may take [param-space]
; WARN-DAG: warning: kernel 'big_new' gets no variants: takes 32753 bytes of parameters; with the variants' 8-byte task pointer after them that is 32768, more than the 32764 bytes a kernel of its PTX version and target may take [param-space]
; CHECK-DAG: define ptx_kernel void @small_old__baton_ptb(
; CHECK-DAG: define ptx_kernel void @large_new__baton_ptb(
