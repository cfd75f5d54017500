; A recursive callee may hand the warp back split (ptxas's reconvergence does
; not survive recursion), and the PTB worker's end-of-block barrier would
; then release lanes still inside it: PTB refused, slice kept. Reached
; directly, or through an indirect call when a recursive function's address
; is taken; a non-recursive callee keeps both variants.
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s --implicit-check-not=@direct__baton_ptb --implicit-check-not=@through_pointer__baton_ptb < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@table = addrspace(1) global [1 x ptr] [ptr @fib]

define i32 @fib(i32 %n) {
  %small = icmp slt i32 %n, 2
  br i1 %small, label %done, label %more
more:
  %a = sub i32 %n, 1
  %fa = call i32 @fib(i32 %a)
  %b = sub i32 %n, 2
  %fb = call i32 @fib(i32 %b)
  %s = add i32 %fa, %fb
  ret i32 %s
done:
  ret i32 %n
}

define i32 @twice(i32 %n) {
  %t = shl i32 %n, 1
  ret i32 %t
}

define ptx_kernel void @direct(ptr %p) {
  %n = load i32, ptr %p
  %f = call i32 @fib(i32 %n)
  store i32 %f, ptr %p
  ret void
}

define ptx_kernel void @through_pointer(ptr %p) {
  %n = load i32, ptr %p
  %fn = load ptr, ptr addrspace(1) @table
  %f = call i32 %fn(i32 %n)
  store i32 %f, ptr %p
  ret void
}

define ptx_kernel void @plain_call(ptr %p) {
  %n = load i32, ptr %p
  %f = call i32 @twice(i32 %n)
  store i32 %f, ptr %p
  ret void
}

; WARN: warning: kernel 'direct' gets no ptb variant: calls 'fib', which is recursive; ptxas miscompiles recursive calls inside a loop that takes its block index from shared memory, as the PTB worker's loop does (wrong results and hangs on sm_90, CUDA 13.0) [recursion]
; WARN: warning: kernel 'through_pointer' gets no ptb variant: calls 'fib', which is recursive; {{.*}} [recursion]
; WARN-NOT: plain_call
; CHECK-DAG: define ptx_kernel void @direct__baton_slice(
; CHECK-DAG: define ptx_kernel void @through_pointer__baton_slice(
; CHECK-DAG: define ptx_kernel void @plain_call__baton_slice(
; CHECK-DAG: define ptx_kernel void @plain_call__baton_ptb(
