/*===- baton/task.h - The task ABI shared by device and host ----*- C -*-===*\
 *
 * One `baton_task` describes one launch of a Baton variant. Both compilers
 * (baton-ptx and the LLVM plugin) emit code that reads exactly this layout
 * through the pointer appended as the variant's last parameter, and the host
 * runtime writes it. This header is the single definition of that layout:
 * device code, host code and the PTX emitter all include it, and the field
 * offsets below are checked by static assertions so a change is caught at
 * compile time everywhere at once.
 *
 * Virtual blocks are numbered linearly in the original grid, x fastest, then
 * y, then z:  v = x + grid_x * (y + grid_y * z). A launch covers [begin, end).
 *
 * Slice variant: block i of the 1-D launch runs virtual block begin + i, if
 * that is below end.
 * PTB variant: workers take v = atomicAdd(&next, 1) until v >= end or until
 * `preempt` sends them away. A block that was taken always completes, so
 * after the launch every v < min(next, end) ran exactly once: `next` is the
 * checkpoint. `preempt` is an SM watermark: a worker leaves when the id of
 * the SM it runs on (%smid) is below it. BATON_PREEMPT_ALL stops every
 * worker (a pause); a value k in (0, %nsmid) vacates SMs 0..k-1 while the
 * workers on the others go on, which is how best-effort work leaves whole
 * SMs to latency-critical kernels without stopping.
 * With claim_chunk = c > 1 a worker takes c consecutive blocks per atomicAdd
 * (fewer atomics on one address for kernels of many short blocks) and runs
 * all of them before it looks at `preempt` again; the checkpoint is the
 * same, and a pause may wait for up to c blocks per worker.
 * First shares: the host may make every worker's first claim itself. With
 * first_share = s > 0 in a launch of W workers, worker w (its %ctaid.x)
 * holds blocks begin + w + k*W, k < s, below begin + first_claimed when it
 * starts, and the host starts `next` at begin + first_claimed,
 * first_claimed = min(end - begin, W*s) (baton_first_shares below). The
 * stride keeps the blocks that run at once neighbours, as in the
 * original's order. A worker runs its first share without looking at
 * `preempt`, exactly as a claim of s blocks, so `next` stays the checkpoint
 * once the launch has returned. A pause waits for up to s blocks a
 * worker, so the host keeps s within its pause bound: at most claim_chunk,
 * or more where shares of s cover the whole grid and the bound allows s
 * blocks (baton_first_share_limit below), and only where all W workers
 * are resident at once (one still waiting for an SM runs its share after
 * a pause too). A worker also never claims once its
 * view of the cursor (as it started, then the end of its last claim) is at
 * `end`: where the first shares cover the grid, a worker makes no atomic
 * and no read of `preempt` at all, which is what short blocks pay for
 * (bench/ptb_anatomy).
 * first_share holds for one run only: a later run of the same launch (after
 * a pause) must see 0, since its workers' shares were run by the first.
 * A PTB worker keeps its loop state in the last bytes of dynamic shared
 * memory (static shared memory would move the kernel's dynamic shared memory
 * off the alignment that TMA and wgmma kernels rely on), so a PTB variant is
 * launched with BATON_PTB_DYNAMIC_SHARED_BYTES more dynamic shared memory
 * than the original; the kernel body still sees the original's size.
 *
 * All indices are 32-bit: the runtime refuses grids of 2^32 - 2^20 blocks or
 * more, and sizes claim_chunk, so that the cursor cannot wrap while workers
 * overshoot `end` (by at most one claim each).
\*===----------------------------------------------------------------------===*/
#ifndef BATON_TASK_H
#define BATON_TASK_H

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
extern "C" {
#else
#include <stddef.h>
#include <stdint.h>
#endif

typedef struct baton_task {
  /* Original grid, in blocks. Read-only for the device. */
  uint32_t grid_x;
  uint32_t grid_y;
  uint32_t grid_z;
  /* Linear virtual blocks [begin, end) that this launch covers. */
  uint32_t begin;
  uint32_t end;
  uint32_t reserved0; /* zero (the cursor's place before ABI version 2) */
  /* SM watermark: PTB workers on SMs whose %smid is below it stop before
     taking another block (BATON_PREEMPT_ALL: all of them; 0: none). Written
     by the host (mapped memory or a stream memory operation), read
     volatile. */
  uint32_t preempt;
  /* Statistics, written by the device, zero when a launch starts (the
     host's copy of the task, or, for a task the Baton runtime reuses, its
     finalize kernel after the task's last run). */
  uint32_t workers_exited;   /* PTB workers that have left the loop */
  uint32_t workers_preempted; /* of those, the ones that saw `preempt` */
  /* Written by the host before a PTB launch: BATON_TASK_PREFETCH. */
  uint32_t flags;
  /* Written by the host before a PTB launch: virtual blocks per claim
     (0 and 1 both mean one), at most BATON_MAX_CLAIM_CHUNK. */
  uint32_t claim_chunk;
  /* Written by the host before a PTB launch: the first shares (above), 0
     for none; first_claimed is what they cover, and
     `next` starts at begin + first_claimed. The Baton runtime's finalize
     kernel clears first_share after a run that stopped short of `end`. */
  uint32_t first_share;
  uint32_t first_claimed;
  uint32_t reserved[3]; /* zero; room for later statistics */
  /* Unused: keeps `next` on a 128-byte cache line of its own. Every claim
     is an atomic on `next`, and every claim first reads `preempt`; on one
     line the two serialise in the L2, and the read waits behind the other
     workers' atomics (docs/abi.md). */
  uint32_t line_pad[16];
  /* PTB cursor: next virtual block to hand out. Updated with atom.add.
     The Baton runtime puts it back to `begin` once a run has reached `end`
     (docs/abi.md), so a completed task it owns reads `next = begin`. */
  uint32_t next;
  uint32_t next_pad[15]; /* unused */
} baton_task;

/* Offsets used by the code generators. Kept as plain constants so that the
   PTX emitter and the LLVM pass name them instead of repeating numbers. */
#define BATON_TASK_OFFSET_GRID_X 0
#define BATON_TASK_OFFSET_GRID_Y 4
#define BATON_TASK_OFFSET_GRID_Z 8
#define BATON_TASK_OFFSET_BEGIN 12
#define BATON_TASK_OFFSET_END 16
#define BATON_TASK_OFFSET_NEXT 128
#define BATON_TASK_OFFSET_PREEMPT 24
#define BATON_TASK_OFFSET_WORKERS_EXITED 28
#define BATON_TASK_OFFSET_WORKERS_PREEMPTED 32
#define BATON_TASK_OFFSET_FLAGS 36
#define BATON_TASK_OFFSET_CLAIM_CHUNK 40
#define BATON_TASK_OFFSET_FIRST_SHARE 44
#define BATON_TASK_OFFSET_FIRST_CLAIMED 48
#define BATON_TASK_SIZE 192
/* A task must start on a 128-byte boundary, for `next` to have its line. */
#define BATON_TASK_ALIGN 128
/* Changes whenever a field moves: code built for one version misreads a
   task of another (side modules record it). */
#define BATON_TASK_ABI_VERSION 6

/* `preempt` value that stops every PTB worker, whatever its SM. */
#define BATON_PREEMPT_ALL 0xFFFFFFFFu

/* flags: a PTB worker claims its next virtual block when it starts a block
   instead of when it finishes one. The claim's latency is hidden behind the
   body (better for short blocks), but a worker that sees `preempt` may still
   run one more block: the preemption latency bound grows from one block
   duration to two. */
#define BATON_TASK_PREFETCH 1u

/* Largest claim_chunk the runtime writes. */
#define BATON_MAX_CLAIM_CHUNK 64u

/* Extra dynamic shared memory of a PTB launch (see above). */
#define BATON_PTB_DYNAMIC_SHARED_BYTES 80

/* The PTB loop's state in it: two 16-byte slots, then the leader's claim
   {cur, lim} at BATON_PTB_CLAIM_OFFSET from the slots, its view of the
   cursor at BATON_PTB_VIEW_OFFSET and the claim's step (1, or the workers
   for a first share) at BATON_PTB_STEP_OFFSET, read and written as one
   16-byte vector; then a copy of the task's grid_x, grid_y and grid_z, in
   the task's layout, at BATON_PTB_GRID_OFFSET, which the leader makes as the
   worker starts (the fetches decode against it and the body's %nctaid read
   it: loaded from the task at every fetch instead, though an L1 hit, it
   doubled what handing out short blocks cost, bench/ptb_anatomy). The
   slots start at (dynamic shared base + %dynamic_smem_size -
   BATON_PTB_STATE_BYTES) & -16. Rounding down may take 15 bytes more, which
   the extra bytes cover. */
#define BATON_PTB_CLAIM_OFFSET 32
#define BATON_PTB_VIEW_OFFSET 40
#define BATON_PTB_STEP_OFFSET 44
#define BATON_PTB_GRID_OFFSET 48
#define BATON_PTB_STATE_BYTES 64

/* Largest grid (in blocks) a variant may cover; see the note above. */
#define BATON_MAX_VIRTUAL_BLOCKS 0xFFF00000u

/* The virtual block a PTB leader publishes when it saw `preempt`: at or
   past every `end`, so its worker leaves, and told from a claim past the end
   at the exit (workers_preempted). */
#define BATON_PTB_STOP 0xFFFFFFFFu

/* Suffixes of the variant kernels; part of the ABI (the runtime finds
   variants by name). */
#define BATON_SLICE_SUFFIX "__baton_slice"
#define BATON_PTB_SUFFIX "__baton_ptb"

/* Every PTB variant of this ABI version comes with a weak one-byte .global
   named after it and the version, <kernel>__baton_ptb__abi6: the runtime
   hands first shares only to variants that have one, since a variant built
   for an earlier version would start at `next` and skip every share (or,
   before version 6, keep a smaller loop state). */
#define BATON_ABI_STRINGIFY2(X) #X
#define BATON_ABI_STRINGIFY(X) BATON_ABI_STRINGIFY2(X)
#define BATON_ABI_MARKER_SUFFIX                                                \
  "__abi" BATON_ABI_STRINGIFY(BATON_TASK_ABI_VERSION)

/* The most blocks a first share may hold in a run of `workers` PTB workers
   over [begin, end) with claims of up to `claim_chunk`: the claim chunk, or
   each worker's whole share of the grid, rounded up, where that is larger
   but at most `covering_limit` (the most blocks a worker may run before it
   looks at `preempt` within the host's pause bound, 0 for none; taken as
   BATON_MAX_CLAIM_CHUNK at most). Shares that cover the grid leave no
   worker a claim to make. */
static inline uint32_t baton_first_share_limit(uint32_t begin, uint32_t end,
                                               uint32_t workers,
                                               uint32_t claim_chunk,
                                               uint32_t covering_limit) {
  uint64_t blocks = end > begin ? (uint64_t)(end - begin) : 0;
  uint64_t chunk = claim_chunk > 1 ? claim_chunk : 1;
  uint64_t whole;
  if (workers == 0)
    return (uint32_t)chunk;
  whole = (blocks + workers - 1) / workers;
  return (uint32_t)(whole > chunk && whole <= covering_limit &&
                            whole <= BATON_MAX_CLAIM_CHUNK
                        ? whole
                        : chunk);
}

/* The first shares (above) for a run of `workers` PTB workers over [begin,
   end) with claims of up to `claim_chunk`: each worker's share of the
   blocks, rounded up, at most baton_first_share_limit (with
   `covering_limit`), as the worker's own first claim would take it with a
   claim chunk of that limit. Returns the share and sets *first_claimed; 0
   (none) for no workers or no blocks, or where begin + workers * share
   would pass BATON_MAX_VIRTUAL_BLOCKS (the device computes it in 32 bits). */
static inline uint32_t baton_first_shares(uint32_t begin, uint32_t end,
                                          uint32_t workers,
                                          uint32_t claim_chunk,
                                          uint32_t covering_limit,
                                          uint32_t *first_claimed) {
  uint64_t blocks = end > begin ? (uint64_t)(end - begin) : 0;
  uint64_t chunk = baton_first_share_limit(begin, end, workers, claim_chunk,
                                           covering_limit);
  uint64_t share, covered;
  *first_claimed = 0;
  if (workers == 0 || blocks == 0)
    return 0;
  share = (blocks + workers - 1) / workers;
  if (share > chunk)
    share = chunk;
  covered = share * workers;
  if (begin + covered > BATON_MAX_VIRTUAL_BLOCKS)
    return 0;
  *first_claimed = (uint32_t)(covered < blocks ? covered : blocks);
  return (uint32_t)share;
}

#ifdef __cplusplus
} /* extern "C" */
static_assert(offsetof(baton_task, grid_x) == BATON_TASK_OFFSET_GRID_X, "ABI");
static_assert(offsetof(baton_task, grid_y) == BATON_TASK_OFFSET_GRID_Y, "ABI");
static_assert(offsetof(baton_task, grid_z) == BATON_TASK_OFFSET_GRID_Z, "ABI");
static_assert(offsetof(baton_task, begin) == BATON_TASK_OFFSET_BEGIN, "ABI");
static_assert(offsetof(baton_task, end) == BATON_TASK_OFFSET_END, "ABI");
static_assert(offsetof(baton_task, next) == BATON_TASK_OFFSET_NEXT, "ABI");
static_assert(offsetof(baton_task, preempt) == BATON_TASK_OFFSET_PREEMPT, "ABI");
static_assert(offsetof(baton_task, workers_exited) ==
                  BATON_TASK_OFFSET_WORKERS_EXITED,
              "ABI");
static_assert(offsetof(baton_task, workers_preempted) ==
                  BATON_TASK_OFFSET_WORKERS_PREEMPTED,
              "ABI");
static_assert(offsetof(baton_task, flags) == BATON_TASK_OFFSET_FLAGS, "ABI");
static_assert(offsetof(baton_task, claim_chunk) ==
                  BATON_TASK_OFFSET_CLAIM_CHUNK,
              "ABI");
static_assert(offsetof(baton_task, first_share) ==
                  BATON_TASK_OFFSET_FIRST_SHARE,
              "ABI");
static_assert(offsetof(baton_task, first_claimed) ==
                  BATON_TASK_OFFSET_FIRST_CLAIMED,
              "ABI");
static_assert(sizeof(baton_task) == BATON_TASK_SIZE, "ABI");
static_assert(BATON_PTB_STOP >= BATON_MAX_VIRTUAL_BLOCKS, "ABI");
static_assert(BATON_PTB_CLAIM_OFFSET % 16 == 0 &&
                  BATON_PTB_CLAIM_OFFSET + 8 == BATON_PTB_VIEW_OFFSET &&
                  BATON_PTB_VIEW_OFFSET + 4 == BATON_PTB_STEP_OFFSET &&
                  BATON_PTB_STEP_OFFSET + 4 <= BATON_PTB_STATE_BYTES &&
                  BATON_PTB_STATE_BYTES + 15 <= BATON_PTB_DYNAMIC_SHARED_BYTES,
              "ABI");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(offsetof(baton_task, next) == BATON_TASK_OFFSET_NEXT, "ABI");
_Static_assert(sizeof(baton_task) == BATON_TASK_SIZE, "ABI");
#endif

#endif /* BATON_TASK_H */
