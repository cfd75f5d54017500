; The task ABI: one extra parameter, appended last, a pointer to baton_task
; in global memory (addrspace(1), align BATON_TASK_ALIGN = 128); fields at the
; BATON_TASK_OFFSET_* offsets; launch bounds and the kernel calling
; convention copied from the original.
; RUN: %opt -passes=baton-variants %s -S | FileCheck %s
; RUN: %opt -passes=baton-variants %s -o %t.bc
; RUN: %llc -mcpu=sm_90a %t.bc -o %t.ptx && %ptxas %t.ptx -o /dev/null
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @abi(ptr %p, i32 %n, float %f) #0 {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %x, ptr %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

attributes #0 = { "nvvm.maxntid"="128" "nvvm.minctasm"="2" }

; The PTB variant's ABI marker (task.h): a weak byte named after it, which
; tells the runtime that the variant takes first shares.
; CHECK: @abi__baton_ptb__abi6 = weak addrspace(1) global i8 0, align 1
; CHECK-LABEL: define ptx_kernel void @abi(ptr %p, i32 %n, float %f) #0 {
; CHECK-LABEL: define ptx_kernel void @abi__baton_slice(ptr %p, i32 %n, float %f, ptr addrspace(1) noundef align 128 %baton.task) #0 {
; CHECK: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 12
; CHECK: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 16
; CHECK-LABEL: define ptx_kernel void @abi__baton_ptb(ptr %p, i32 %n, float %f, ptr addrspace(1) noundef align 128 %baton.task) #0 {
; CHECK: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 16
; CHECK: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 36
; `flags` is not used before the leader's branch (see baton.first).
; CHECK-NOT: %baton.flags,
; The leader's view of the cursor is the cursor as it starts; its first
; claim is its first share: blocks begin + %ctaid.x, then a stride of
; %nctaid.x, below begin + %nctaid.x * first_share (and end), empty when
; first_share is 0. The claim {cur, lim}, the view and the step live in
; shared memory after the slots, not in registers across the body: the
; loop carries nothing but the slot parity.
; CHECK: baton.fetch.first:
; CHECK-NEXT: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 128
; CHECK-NEXT: %baton.cursor = load i32
; CHECK-NEXT: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 44
; CHECK-NEXT: %baton.first.share = load i32
; CHECK-NEXT: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 12
; CHECK-NEXT: %baton.begin = load i32
; The grid is loaded with them, and copied to the loop's state for the
; later fetches.
; CHECK-NEXT: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 0
; CHECK-NEXT: %baton.nctaid.x = load i32
; CHECK-NEXT: [[GX:%.*]] = getelementptr inbounds i8, ptr addrspace(3) %baton.grid.addr, i32 0
; CHECK-NEXT: store i32 %baton.nctaid.x, ptr addrspace(3) [[GX]], align 4
; CHECK-NEXT: %baton.worker = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; CHECK-NEXT: %baton.workers = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
; CHECK-NEXT: [[COVERED:%.*]] = mul i32 %baton.workers, %baton.first.share
; CHECK-NEXT: [[PAST:%.*]] = add i32 [[COVERED]], %baton.begin
; CHECK-NEXT: %baton.shares.end = call i32 @llvm.umin.i32(i32 [[PAST]], i32 %baton.end)
; CHECK-NEXT: [[FIRST:%.*]] = add i32 %baton.begin, %baton.worker
; CHECK-NEXT: %baton.before = sub i32 [[FIRST]], %baton.workers
; The share is the claim later fetches read, with the view and the step:
; all of it is stored (the fetch that hands out its first block stores only
; that block).
; CHECK-NEXT: [[C0:%.*]] = insertelement <4 x i32> poison, i32 %baton.before, i64 0
; CHECK-NEXT: [[C1:%.*]] = insertelement <4 x i32> [[C0]], i32 %baton.shares.end, i64 1
; CHECK-NEXT: [[C2:%.*]] = insertelement <4 x i32> [[C1]], i32 %baton.cursor, i64 2
; CHECK-NEXT: [[C3:%.*]] = insertelement <4 x i32> [[C2]], i32 %baton.workers, i64 3
; CHECK-NEXT: store <4 x i32> [[C3]], ptr addrspace(3) %baton.claim.addr, align 16
; CHECK-NEXT: %baton.following = add i32 %baton.before, %baton.workers
; A block left in the claim needs no atomic.
; CHECK-NEXT: %baton.held = icmp ult i32 %baton.following, %baton.shares.end
; CHECK-NEXT: br i1 %baton.held, label %baton.publish, label %baton.viewed
; Nor does a view of the cursor at end: no claim could get a block.
; CHECK: baton.viewed:
; CHECK-NEXT: %baton.view = load i32, ptr addrspace(3) %baton.view.addr, align 4
; CHECK-NEXT: %baton.exhausted = icmp uge i32 %baton.view, %baton.end
; CHECK-NEXT: br i1 %baton.exhausted, label %baton.publish, label %baton.check
; CHECK: baton.check:
; CHECK-NEXT: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 40
; CHECK: %baton.chunk = call i32 @llvm.umax.i32(i32 %baton.claim.chunk, i32 1)
; The worker's first claim takes its whole share of the blocks left, rounded
; up: (left - 1) / workers + 1, then at most claim_chunk and at least 1.
; CHECK: %baton.left = sub i32 %baton.end, %baton.view
; CHECK-NEXT: [[LESS:%.*]] = sub i32 %baton.left, 1
; CHECK-NEXT: [[DIV:%.*]] = udiv i32 [[LESS]], %baton.workers
; CHECK-NEXT: %baton.share = add i32 [[DIV]], 1
; CHECK-NEXT: [[MOST:%.*]] = call i32 @llvm.umin.i32(i32 %baton.share, i32 %baton.chunk)
; CHECK-NEXT: %baton.size = call i32 @llvm.umax.i32(i32 [[MOST]], i32 1)
; The worker stops when its SM's id is below the watermark in `preempt`.
; CHECK: %baton.sm = call i32 @llvm.nvvm.read.ptx.sreg.smid()
; CHECK: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 24
; CHECK: %baton.preempt.flag = load volatile i32
; CHECK-NEXT: %baton.flagged = icmp ult i32 %baton.sm, %baton.preempt.flag
; CHECK-NEXT: br i1 %baton.flagged, label %baton.publish, label %baton.take
; A new claim stores its end (lim, claim + 4), which is also the leader's
; new view of the cursor, and step 1; no other path stores them but the
; worker's start.
; CHECK: baton.take:
; CHECK: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 128
; CHECK: [[TAKEN:%.*]] = atomicrmw add ptr addrspace(1) %{{.*}}, i32 %baton.size monotonic
; CHECK-NEXT: %baton.limit = add i32 [[TAKEN]], %baton.size
; CHECK-NEXT: [[LIM:%.*]] = getelementptr inbounds i8, ptr addrspace(3) %baton.claim.addr, i32 4
; CHECK-NEXT: store i32 %baton.limit, ptr addrspace(3) [[LIM]], align 4
; CHECK-NEXT: [[V0:%.*]] = insertelement <2 x i32> poison, i32 %baton.limit, i64 0
; CHECK-NEXT: [[V1:%.*]] = insertelement <2 x i32> [[V0]], i32 1, i64 1
; CHECK-NEXT: store <2 x i32> [[V1]], ptr addrspace(3) %baton.view.addr, align 8
; Every path stores the block it hands out (cur); STOP is -1, and a view at
; end ends the worker as a claim past the end would.
; CHECK: baton.publish:
; CHECK-NEXT: %baton.nv = phi i32 [ %baton.following, %baton.fetch.first ], [ %baton.view, %baton.viewed ], [ -1, %baton.check ], [ [[TAKEN]], %baton.take ]
; CHECK-NEXT: store i32 %baton.nv, ptr addrspace(3) %baton.claim.addr, align 8
; Only x is read: in a 1-D grid it is the block itself, no urem. The first
; fetch decodes against the grid it loaded.
; CHECK-NEXT: %baton.n.row = icmp ult i32 %baton.nv, %baton.nctaid.x
; CHECK-NEXT: br i1 %baton.n.row, label %baton.n.decoded, label %baton.n.rem
; CHECK: baton.n.rem:
; CHECK-NEXT: urem i32 %baton.nv, %baton.nctaid.x
; CHECK: baton.n.decoded:
; CHECK-NEXT: %baton.n.x = phi i32 [ %baton.nv, %baton.publish ], [ %baton.n.wrapped, %baton.n.rem ]
; Whether the leader claims early or late is worked out only where every
; thread meets: `flags` used before the leader's branch would hold the
; leader's loads of the task back until its own load came in.
; CHECK: baton.first:
; CHECK-NEXT: [[BIT:%.*]] = and i32 %baton.flags, 1
; CHECK-NEXT: [[PREFETCH:%.*]] = icmp ne i32 [[BIT]], 0
; CHECK-NEXT: %baton.early = and i1 %baton.leader, [[PREFETCH]]
; CHECK-NEXT: [[NOPREFETCH:%.*]] = xor i1 [[PREFETCH]], true
; CHECK-NEXT: %baton.late = and i1 %baton.leader, [[NOPREFETCH]]
; CHECK-NEXT: call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
; CHECK: baton.loop:
; CHECK-NEXT: %baton.parity = phi i32
; CHECK-NEXT: getelementptr i8, ptr addrspace(3) %baton.slot, i32 %baton.parity
; Later fetches load the claim again.
; CHECK: baton.fetch.early:
; CHECK-NEXT: %baton.claim.held = load <4 x i32>, ptr addrspace(3) %baton.claim.addr, align 16
; CHECK: %baton.following{{[0-9]+}} = add i32 %baton.cur{{[0-9]*}}, %baton.step{{[0-9]*}}
; A later claim sees the cursor as it was at the worker's previous claim and
; takes half a share of what that left.
; CHECK: %baton.view{{[0-9]+}} = load i32, ptr addrspace(3) %baton.view.addr, align 4
; CHECK: %baton.left{{[0-9]+}} = sub i32 %baton.end, %baton.view{{[0-9]+}}
; CHECK-NEXT: [[TWICE:%.*]] = shl i32 %baton.workers{{[0-9]+}}, 1
; CHECK-NEXT: %baton.share{{[0-9]+}} = udiv i32 %baton.left{{[0-9]+}}, [[TWICE]]
; Its decode reads the grid from the loop's state, not from the task.
; CHECK: [[GX:%.*]] = getelementptr inbounds i8, ptr addrspace(3) %baton.grid.addr, i32 0
; CHECK-NEXT: %baton.nctaid.x{{[0-9]+}} = load i32, ptr addrspace(3) [[GX]], align 4
; CHECK: baton.fetch.late:
; CHECK-NEXT: load <4 x i32>, ptr addrspace(3) %baton.claim.addr, align 16
; CHECK: %baton.view{{[0-9]+}} = load i32, ptr addrspace(3) %baton.view.addr, align 4
; CHECK: %baton.left{{[0-9]+}} = sub i32 %baton.end, %baton.view{{[0-9]+}}
; CHECK-NEXT: [[TWICE:%.*]] = shl i32 %baton.workers{{[0-9]+}}, 1
; CHECK-NEXT: %baton.share{{[0-9]+}} = udiv i32 %baton.left{{[0-9]+}}, [[TWICE]]
; CHECK: baton.stats:
; CHECK: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 28
; Only STOP means the leader saw `preempt`.
; CHECK: %baton.preempted = icmp eq i32 %baton.v, -1
; CHECK: baton.stats.preempted:
; CHECK: getelementptr inbounds i8, ptr addrspace(1) %baton.task, i32 32
; CHECK: attributes #0 = { "nvvm.maxntid"="128" "nvvm.minctasm"="2" }

; PTX: .extern .shared .align 16 .b8 baton_dynamic_smem[];
; PTX-NEXT: .weak .global .align 1 .u8 abi__baton_ptb__abi6;
; PTX-LABEL: .entry abi__baton_slice(
; PTX: .param .f32 abi__baton_slice_param_2,
; PTX-NEXT: .param .u64 .ptr .global .align 128 abi__baton_slice_param_3
; PTX-NEXT: )
; PTX-NEXT: .maxntid 128
; PTX-NEXT: .minnctapersm 2
; PTX-LABEL: .entry abi__baton_ptb(
; PTX: .param .u64 .ptr .global .align 128 abi__baton_ptb_param_3
