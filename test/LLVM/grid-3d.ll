; 3-D grids: the virtual block v is decoded x fastest, then y, then z, from
; the original grid in the task; %nctaid reads return the task's grid.
; RUN: %opt -passes=baton-variants %s -S | FileCheck %s
; RUN: %opt -passes=baton-variants %s -o %t.bc
; RUN: %llc -mcpu=sm_90a %t.bc -o %t.ptx && %ptxas %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @grid3(ptr %out) {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %y = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %z = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
  %nz = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
  %a = add i32 %x, %y
  %b = add i32 %a, %z
  %c = add i32 %b, %nz
  store i32 %c, ptr %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()

; CHECK-LABEL: define ptx_kernel void @grid3__baton_slice(
; CHECK: %baton.slice = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; CHECK: %baton.v = add i32 %baton.begin, %baton.slice
; CHECK: %baton.nctaid.x = load i32
; CHECK: %baton.nctaid.y = load i32
; CHECK: %baton.nctaid.z = load i32
; CHECK: %baton.ctaid.x = urem i32 %baton.v, %baton.nctaid.x
; CHECK: %baton.ctaid.yz = udiv i32 %baton.v, %baton.nctaid.x
; CHECK: %baton.ctaid.y = urem i32 %baton.ctaid.yz, %baton.nctaid.y
; CHECK: %baton.ctaid.z = udiv i32 %baton.ctaid.yz, %baton.nctaid.y
; CHECK-NOT: sreg.ctaid
; CHECK-NOT: sreg.nctaid
; CHECK: %a = add i32 %baton.ctaid.x, %baton.ctaid.y
; CHECK: %b = add i32 %a, %baton.ctaid.z
; CHECK: %c = add i32 %b, %baton.nctaid.z
; CHECK-LABEL: define ptx_kernel void @grid3__baton_ptb(
; The leader copies the whole grid to the loop's state as the worker starts.
; CHECK: baton.fetch.first:
; CHECK: %baton.nctaid.x = load i32
; CHECK: %baton.nctaid.y = load i32
; CHECK: %baton.nctaid.z = load i32
; CHECK-NEXT: [[SX:%.*]] = getelementptr inbounds i8, ptr addrspace(3) %baton.grid.addr, i32 0
; CHECK-NEXT: store i32 %baton.nctaid.x, ptr addrspace(3) [[SX]], align 4
; CHECK-NEXT: [[SY:%.*]] = getelementptr inbounds i8, ptr addrspace(3) %baton.grid.addr, i32 4
; CHECK-NEXT: store i32 %baton.nctaid.y, ptr addrspace(3) [[SY]], align 4
; CHECK-NEXT: [[SZ:%.*]] = getelementptr inbounds i8, ptr addrspace(3) %baton.grid.addr, i32 8
; CHECK-NEXT: store i32 %baton.nctaid.z, ptr addrspace(3) [[SZ]], align 4
; CHECK: baton.publish:
; CHECK: %baton.n.x = urem i32 %baton.nv, %baton.nctaid.x
; CHECK: %baton.n.yz = udiv i32 %baton.nv, %baton.nctaid.x
; CHECK: %baton.n.y = urem i32 %baton.n.yz, %baton.nctaid.y
; CHECK: %baton.n.z = udiv i32 %baton.n.yz, %baton.nctaid.y
; CHECK: baton.loop:
; CHECK: %baton.ctaid.x = extractelement <4 x i32> %baton.slot.v, i64 1
; CHECK: %baton.ctaid.y = extractelement <4 x i32> %baton.slot.v, i64 2
; CHECK: %baton.ctaid.z = extractelement <4 x i32> %baton.slot.v, i64 3
; The body's %nctaid are loaded for each virtual block, not kept live, from
; the copy of the grid in the loop's state.
; CHECK: baton.claim:
; CHECK-NEXT: %baton.parity.next = xor i32 %baton.parity, 16
; CHECK-NEXT: [[GZ:%.*]] = getelementptr inbounds i8, ptr addrspace(3) %baton.grid.addr, i32 8
; CHECK-NEXT: %baton.nctaid.z{{[0-9]*}} = load i32, ptr addrspace(3) [[GZ]], align 4
; CHECK-NOT: sreg.ctaid
; CHECK: %c = add i32 %b, %baton.nctaid.z
