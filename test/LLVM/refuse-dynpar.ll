; Dynamic parallelism (device-side launches through the device runtime API)
; is refused; the module still assembles (as an object: the device runtime is
; resolved at device link time).
; RUN: %opt -passes=baton-variants %s -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; RUN: %llc -mcpu=sm_90a %t.ll -o %t.ptx && %ptxas -c %t.ptx -o /dev/null
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @parent(ptr %p) {
  %buf = call ptr @cudaGetParameterBufferV2(ptr null, i64 1, i64 1, i32 0)
  %e = call i32 @cudaLaunchDeviceV2(ptr %buf, ptr null)
  store i32 %e, ptr %p
  ret void
}

declare ptr @cudaGetParameterBufferV2(ptr, i64, i64, i32)
declare i32 @cudaLaunchDeviceV2(ptr, ptr)

; WARN: warning: kernel 'parent' gets no variants: calls the device runtime function cudaGetParameterBufferV2 (dynamic parallelism) [dynamic-parallelism]
; WARN-NOT: warning
; CHECK-LABEL: define ptx_kernel void @parent(
; CHECK-NOT: @parent__baton_slice
; CHECK-NOT: @parent__baton_ptb
