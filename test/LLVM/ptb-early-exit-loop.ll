; Early returns inside a loop of the body end the thread's virtual block:
; in the PTB variant every ret becomes a branch to baton.next (the worker
; keeps looping), llvm.nvvm.exit likewise; the slice variant keeps them.
; Static allocas of the original entry block stay in the entry block, out of
; the worker loop.
; RUN: %opt -passes=baton-variants %s -S | FileCheck %s
; RUN: %opt -passes=baton-variants %s -o %t.bc
; RUN: %llc -mcpu=sm_90a %t.bc -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @search(ptr %data, i32 %n) {
entry:
  %buf = alloca [4 x i32], align 4
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %more ]
  %p = getelementptr i32, ptr %data, i32 %i
  %v = load i32, ptr %p
  %hit = icmp eq i32 %v, %x
  br i1 %hit, label %found, label %cont

found:
  store i32 %i, ptr %buf
  store i32 0, ptr %p
  ret void

cont:
  %i.next = add i32 %i, 1
  %big = icmp ugt i32 %i.next, 1000
  br i1 %big, label %die, label %more

die:
  call void @llvm.nvvm.exit()
  unreachable

more:
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %out, label %loop

out:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.exit()

; CHECK-LABEL: define ptx_kernel void @search(
; CHECK: {{^}}found:
; CHECK-NEXT: store i32 %i, ptr %buf
; CHECK-NEXT: store i32 0, ptr %p
; CHECK-NEXT: ret void
; CHECK-LABEL: define ptx_kernel void @search__baton_slice(
; CHECK-NEXT: baton.entry:
; CHECK-NEXT: %buf = alloca [4 x i32]
; CHECK: {{^}}found:
; CHECK: ret void
; CHECK: {{^}}die:
; CHECK-NEXT: call void @llvm.nvvm.exit()
; CHECK-LABEL: define ptx_kernel void @search__baton_ptb(
; CHECK-NEXT: baton.entry:
; CHECK-NEXT: %buf = alloca [4 x i32]
; CHECK: {{^}}found:
; CHECK-NEXT: store i32 %i, ptr %buf
; CHECK-NEXT: store i32 0, ptr %p
; CHECK-NEXT: br label %baton.next
; CHECK: {{^}}die:
; CHECK-NEXT: br label %baton.next
; CHECK: {{^}}out:
; CHECK-NEXT: br label %baton.next
; CHECK: baton.next:
; CHECK: baton.fetched:
; CHECK: call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
; CHECK-NEXT: br label %baton.loop
; CHECK: baton.done:
; CHECK-NEXT: ret void
; CHECK-NOT: ret void
; CHECK-NOT: llvm.nvvm.exit
; CHECK: }
