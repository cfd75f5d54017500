//===- RuntimeKernels.cpp - Device code owned by the runtime --------------===//
//
// The finalize kernel runs after the PTB kernel on the same stream, so every
// worker has left and every block's writes are complete when it reads the
// cursor. `fence.acq_rel.sys` orders those writes before the `done` store
// that releases the user's stream (PTX ISA, "Memory Consistency Model"),
// and the store is volatile so the front end's poll of `done` sees it.
// The report needs no fence of its own: the host reads it only after an
// event recorded behind this kernel has completed. After publishing `done`
// it puts the cursor back to `begin` and the statistics to zero, so the
// slot's task is ready for another launch of the same shape with no copy
// (TaskPool.h); the fence orders the report before that reset, for a host
// that reads the cursor while the run ends (Launch::progress). A task with
// first shares (task.h) gets its cursor back past them, where the host put
// it. After a run that stopped short of `end` (a pause, vacated SMs) it
// clears first_share instead: that run's workers ran their shares, and the
// next run of the launch must not run them again. Offsets come from
// task.h, the single definition of the layout, and RunReport.
//
//===----------------------------------------------------------------------===//

#include "RuntimeKernels.h"

#include "baton/task.h"

#define BATON_STR2(X) #X
#define BATON_STR(X) BATON_STR2(X)

// TARGET is the PTX target, WAIT the instructions before the first read.
#define BATON_FINALIZE_PTX(TARGET, WAIT)                                       \
    ".version 7.8\n"                                                           \
    ".target " TARGET "\n"                                                     \
    ".address_size 64\n"                                                       \
    "\n"                                                                       \
    ".visible .entry baton_finalize(\n"                                        \
    "    .param .u64 task_param,\n"                                            \
    "    .param .u64 done_param,\n"                                            \
    "    .param .u32 generation_param,\n"                                      \
    "    .param .u64 report_param)\n"                                          \
    "{\n"                                                                      \
    "  .reg .pred %p;\n"                                                       \
    "  .reg .b32 %r<7>;\n"                                                     \
    "  .reg .b64 %rd<4>;\n"                                                    \
    WAIT                                                                       \
    "  ld.param.u64 %rd1, [task_param];\n"                                     \
    "  ld.param.u64 %rd2, [done_param];\n"                                     \
    "  ld.param.u32 %r1, [generation_param];\n"                                \
    "  ld.param.u64 %rd3, [report_param];\n"                                   \
    "  cvta.to.global.u64 %rd1, %rd1;\n"                                       \
    "  cvta.to.global.u64 %rd2, %rd2;\n"                                       \
    "  cvta.to.global.u64 %rd3, %rd3;\n"                                       \
    "  ld.volatile.global.u32 %r2, [%rd1+" BATON_STR(BATON_TASK_OFFSET_NEXT) "];\n"\
    "  ld.volatile.global.u32 %r3, [%rd1+" BATON_STR(BATON_TASK_OFFSET_END) "];\n"\
    "  ld.volatile.global.u32 %r4, [%rd1+" BATON_STR(BATON_TASK_OFFSET_WORKERS_EXITED) "];\n"\
    "  ld.volatile.global.u32 %r5, [%rd1+" BATON_STR(BATON_TASK_OFFSET_WORKERS_PREEMPTED) "];\n"\
    "  st.volatile.global.u32 [%rd3], %r2;\n"                                  \
    "  st.volatile.global.u32 [%rd3+4], %r4;\n"                                \
    "  st.volatile.global.u32 [%rd3+8], %r5;\n"                                \
    "  setp.lo.u32 %p, %r2, %r3;\n"                                            \
    "  @%p bra SHORT;\n"                                                       \
    "  fence.acq_rel.sys;\n"                                                   \
    "  st.volatile.global.u32 [%rd2], %r1;\n"                                  \
    "  ld.volatile.global.u32 %r6, [%rd1+" BATON_STR(BATON_TASK_OFFSET_BEGIN) "];\n"\
    "  ld.volatile.global.u32 %r2, [%rd1+" BATON_STR(BATON_TASK_OFFSET_FIRST_SHARE) "];\n"\
    "  ld.volatile.global.u32 %r3, [%rd1+" BATON_STR(BATON_TASK_OFFSET_FIRST_CLAIMED) "];\n"\
    "  setp.ne.u32 %p, %r2, 0;\n"                                              \
    "  @%p add.u32 %r6, %r6, %r3;\n"                                           \
    "  st.volatile.global.u32 [%rd1+" BATON_STR(BATON_TASK_OFFSET_NEXT) "], %r6;\n"\
    "  mov.u32 %r6, 0;\n"                                                      \
    "  st.volatile.global.u32 [%rd1+" BATON_STR(BATON_TASK_OFFSET_WORKERS_EXITED) "], %r6;\n"\
    "  st.volatile.global.u32 [%rd1+" BATON_STR(BATON_TASK_OFFSET_WORKERS_PREEMPTED) "], %r6;\n"\
    "  ret;\n"                                                                 \
    "SHORT:\n"                                                                 \
    "  mov.u32 %r6, 0;\n"                                                      \
    "  st.volatile.global.u32 [%rd1+" BATON_STR(BATON_TASK_OFFSET_FIRST_SHARE) "], %r6;\n"\
    "  ret;\n"                                                                 \
    "}\n"

const char baton::detail::FinalizePtx[] = BATON_FINALIZE_PTX("sm_75", "");

// griddepcontrol.wait returns once the grid this one depends on has
// completed and its memory operations are visible; without a programmatic
// dependency it returns at once.
const char baton::detail::FinalizeDependentPtx[] =
    BATON_FINALIZE_PTX("sm_90", "  griddepcontrol.wait;\n");
