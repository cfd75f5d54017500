; -baton-kernels / -baton-skip choose kernels by whole-name regex;
; __attribute__((annotate("baton_skip"))) opts a kernel out; variant-only
; passes make one kind. Unselected kernels appear in the report.
; RUN: %opt -passes=baton-variants -baton-kernels='a.*' -baton-skip=abc %s -S | FileCheck %s --check-prefix=SEL
; RUN: %opt -passes='baton-variants<slice-only>' %s -S | FileCheck %s --check-prefix=SLICE
; RUN: %opt -passes='baton-variants<ptb-only>' %s -S | FileCheck %s --check-prefix=PTB
; RUN: %opt -passes=baton-variants -baton-report=%t.json %s -disable-output
; RUN: FileCheck %s --check-prefix=JSON < %t.json
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.str = private unnamed_addr constant [11 x i8] c"baton_skip\00", section "llvm.metadata"
@.file = private unnamed_addr constant [5 x i8] c"k.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @annotated, ptr @.str, ptr @.file, i32 1, ptr null }], section "llvm.metadata"

define ptx_kernel void @abc(ptr %p) {
  ret void
}

define ptx_kernel void @axe(ptr %p) #0 {
  ret void
}

define ptx_kernel void @bee(ptr %p) {
  ret void
}

define ptx_kernel void @annotated(ptr %p) {
  ret void
}

attributes #0 = { "nvvm.reqntid"="64,2" }

; SEL-NOT: @abc__baton
; SEL-NOT: @bee__baton
; SEL-NOT: @annotated__baton
; SEL: define ptx_kernel void @axe__baton_slice(
; SEL: define ptx_kernel void @axe__baton_ptb(
; SEL-NOT: define

; SLICE: define ptx_kernel void @abc__baton_slice(
; SLICE-NOT: __baton_ptb

; PTB-NOT: __baton_slice(
; PTB: define ptx_kernel void @abc__baton_ptb(

; JSON: "kernels": [
; JSON: {"name": "abc", "line": 0, "selected": true, "variants": {"slice": "abc__baton_slice", "ptb": "abc__baton_ptb"}
; JSON: {"name": "axe", {{.*}} "facts": {"reqntid": [64, 2, 1], "maxntid": null
; JSON: {"name": "annotated", "line": 0, "selected": false, "variants": {"slice": null, "ptb": null}
