/*===- baton/share.h - One GPU shared by several processes -------*- C -*-===*\
 *
 * Processes that share a GPU meet in a registry: a small POSIX shared-memory
 * segment per user and device (default name "/baton-<uid>-gpu<N>"), created
 * by the first process that joins. Each process that joins holds one slot:
 * its pid, its class, a display name, a heartbeat and counters.
 *
 *  * A latency-critical (LC) process announces each piece of work before it
 *    queues it (baton_share_announce) and says when the work is over: from
 *    the host (baton_share_end), or from the GPU when a stream reaches that
 *    point (baton_share_end_on_stream: the stream writes a word of the
 *    registry, mapped for the device, so no thread of the LC process waits
 *    for the work and peers see its end within microseconds).
 *  * A best-effort (BE) process asks baton_share_should_yield() whenever it
 *    could run (the scheduler's thread does, every few microseconds while it
 *    has work): while any live process has LC work outstanding, its BE
 *    kernels stay paused (time sharing).
 *
 * Nobody waits for a peer that cannot answer:
 *  * a peer that died (its pid gone, or a zombie) counts for nothing; its
 *    slot is reclaimed by the next process that joins, or by a BE process
 *    that sees it while asking whether to yield;
 *  * a peer whose heartbeat (every 100 ms, from a thread this library starts
 *    in each joined process) is older than 1 s counts for nothing until it
 *    beats again (a stopped process; a peer in another pid namespace, whose
 *    pid cannot be checked, and whose slot is reclaimed after 10 s);
 *  * LC work that makes no progress for the lease (1000 ms by default;
 *    BATON_SHARE_LEASE_MS or baton_share_set_lease) is expired by its own
 *    process: it stops counting, and the expiry is reported on stderr and
 *    counted in the slot.
 *
 * Environment:
 *   BATON_SHARE_REGISTRY=/name   registry to use instead of the default
 *   BATON_SHARE_LEASE_MS=N       lease of LC work, in milliseconds
 *   BATON_SHARE_END=events       baton_share_end_on_stream polls events
 *                                from a host thread instead of mapping the
 *                                registry for the GPU (see below)
 *
 * Every function may be called from any thread of the process that joined.
 * A handle does not survive fork(): in the child every call with it fails
 * with BATON_SHARE_ERROR_FORKED (the child may join on its own).
 *
 * No CUDA header is needed: a stream is passed as void* (a CUstream or a
 * cudaStream_t). Functions return a baton_share_status; on failure
 * baton_share_last_error() gives the message. The library is
 * libbaton_share.so (for ctypes) or the static BatonShare target.
 *
 * See docs/sharing.md for how it works and what to expect.
\*===----------------------------------------------------------------------===*/
#ifndef BATON_SHARE_H
#define BATON_SHARE_H

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
extern "C" {
#else
#include <stddef.h>
#include <stdint.h>
#endif

typedef enum baton_share_status {
  BATON_SHARE_OK = 0,
  BATON_SHARE_ERROR_SYSTEM = 1,   /* shm_open, mmap, a thread: see message */
  BATON_SHARE_ERROR_FULL = 2,     /* every slot is held by a live process */
  BATON_SHARE_ERROR_VERSION = 3,  /* the registry has another layout */
  BATON_SHARE_ERROR_NOT_FOUND = 4, /* no such registry (baton_share_list) */
  BATON_SHARE_ERROR_INVALID_ARGUMENT = 5, /* also: a call of the other class */
  BATON_SHARE_ERROR_UNKNOWN_TICKET = 6, /* not outstanding: ended or expired */
  BATON_SHARE_ERROR_CUDA = 7,     /* a driver call failed, or no driver */
  BATON_SHARE_ERROR_FORKED = 8    /* a handle used in a child after fork() */
} baton_share_status;

typedef enum baton_share_class {
  BATON_SHARE_BEST_EFFORT = 1,
  BATON_SHARE_LATENCY_CRITICAL = 2,
  /* Not a class: makes any int a value of the type, so that a caller
     passing a wrong number (ctypes) gets an error, not undefined
     behaviour. */
  BATON_SHARE_CLASS_MAX_ENUM = 0x7fffffff
} baton_share_class;

/* How baton_share_end_on_stream learns that a stream reached its point. */
typedef enum baton_share_end_path {
  BATON_SHARE_END_UNUSED = 0,    /* not called yet */
  BATON_SHARE_END_GPU_WRITE = 1, /* the stream writes the registry */
  BATON_SHARE_END_EVENT_POLL = 2 /* a host thread polls CUDA events */
} baton_share_end_path;

/* Slots in a registry: at most this many processes share one GPU. */
#define BATON_SHARE_MAX_PROCESSES 64
/* Bytes of a display name, the terminating NUL included. */
#define BATON_SHARE_NAME_SIZE 32

/* One process's membership of a registry. */
typedef struct baton_share_s *baton_share;

/* The calling thread's last error message ("" if none). */
const char *baton_share_last_error(void);

/* The registry for CUDA device `device`: $BATON_SHARE_REGISTRY if set, else
   "/baton-<uid>-gpu<device>". Note that `device` is an ordinal as this
   process sees it: processes with different CUDA_VISIBLE_DEVICES must agree
   on a name through BATON_SHARE_REGISTRY. Writes a NUL-terminated name. */
baton_share_status baton_share_default_registry(int device, char *buf,
                                                size_t size);

/* Joins `registry` (a POSIX shm name, "/..."; NULL: the default for
   `device`), creating it if no process has, as a process of class `cls`
   named `name` (NULL: the program's name; longer names are cut). Starts the
   heartbeat thread. BATON_SHARE_ERROR_FULL if every slot is held by a live
   process; BATON_SHARE_ERROR_VERSION if the registry was made by a library
   with another layout (the message names the file to remove). */
baton_share_status baton_share_join(const char *registry, int device,
                                    baton_share_class cls, const char *name,
                                    baton_share *out);

/* Leaves: waits (at most the lease) for work ended on streams to reach its
   point, frees the slot, stops the thread. No other call with `share` may
   be in progress or follow. NULL is ignored. */
void baton_share_leave(baton_share share);

/* --- Latency-critical processes ------------------------------------------ */

/* LC work is about to be queued: peers' BE work yields from now until it is
   ended. Writes a ticket (never 0) for baton_share_end*. */
baton_share_status baton_share_announce(baton_share share, uint64_t *ticket);

/* The work of `ticket` is over (the caller saw it complete). */
baton_share_status baton_share_end(baton_share share, uint64_t ticket);

/* The work of `ticket` is over once `stream` reaches this point: everything
   queued on `stream` so far has completed. Call it after queuing the work,
   with the stream's context current on the calling thread. Returns at once;
   the ticket is spent. The stream writes a word of the registry, which the
   first call maps for the device (cuMemHostRegister), with
   cuStreamWriteValue32, or cuMemsetD32Async where the driver refuses the
   former; if both fail, or BATON_SHARE_END=events, it records an event
   (one per stream) that a host thread of this library polls instead, and
   says so once on stderr. A stream capturing a CUDA graph is refused
   (BATON_SHARE_ERROR_INVALID_ARGUMENT, the ticket still outstanding): the
   write would be captured and made at every replay instead. */
baton_share_status baton_share_end_on_stream(baton_share share,
                                             uint64_t ticket, void *stream);

/* Lease of this process's LC work, in ms (0: the default). */
baton_share_status baton_share_set_lease(baton_share share, unsigned ms);

/* --- Best-effort processes ----------------------------------------------- */

/* 1 while any live process (this one included) has LC work outstanding:
   this process's BE work should stay paused; else 0, and -1 for a bad or
   forked handle. Counts the changes in the slot (pauses, resumes); a
   process that has not asked for a second counts as not yielding. Cheap:
   atomic reads of the registry; a peer's pid is checked at most every
   10 ms. */
int baton_share_should_yield(baton_share share);

/* After the LC work of peers ends, baton_share_should_yield() keeps
   answering 1 for `us` microseconds more (0, the default: none), so that
   the gaps between the kernels of one LC request do not each cost a pause
   and a resume. A new yield starts only with new LC work. */
baton_share_status baton_share_set_linger(baton_share share, unsigned us);

/* Counts `n` BE launches in the slot (shown by batonctl). */
baton_share_status baton_share_count_launches(baton_share share, uint64_t n);

/* --- Anyone --------------------------------------------------------------- */

/* LC work announced and not yet ended, summed over live processes. */
baton_share_status baton_share_lc_outstanding(baton_share share,
                                              uint64_t *outstanding);

/* Latency-critical processes other than this one whose heartbeat is
   recent, whether or not their work is outstanding. Cheap, as
   baton_share_should_yield(). */
baton_share_status baton_share_lc_peers(baton_share share, uint32_t *peers);

/* One process of a registry, as baton_share_list() reads it. */
typedef struct baton_share_process {
  uint32_t slot;
  int32_t pid;
  baton_share_class cls;
  int32_t alive;               /* 0: dead, or its heartbeat is too old */
  char name[BATON_SHARE_NAME_SIZE];
  uint64_t heartbeat_age_us;   /* since its last heartbeat */
  uint64_t joined_age_us;      /* since it joined */
  /* LC */
  uint64_t lc_announced;       /* work announced */
  uint64_t lc_ended;           /* work ended (by the host or a stream) */
  uint64_t lc_outstanding;     /* work not yet over */
  uint64_t lc_expired;         /* work ended by the lease */
  uint32_t lease_ms;
  baton_share_end_path end_path;
  /* BE */
  uint64_t be_launches;        /* launches counted */
  uint64_t be_pauses;          /* times it began yielding to LC work */
  uint64_t be_resumes;         /* times it stopped yielding */
  int32_t be_paused;           /* yielding now */
  /* Not alive because its process is gone (else, if not alive, its
     heartbeat stopped: stopped, hung, or in another pid namespace). */
  int32_t dead;
} baton_share_process;

/* Reads `registry` (NULL: the default for `device`) without joining or
   changing it: up to `capacity` processes into `out`, in slot order, and
   how many there are into `*count` (which may exceed `capacity`).
   BATON_SHARE_ERROR_NOT_FOUND if no process ever joined it. */
baton_share_status baton_share_list(const char *registry, int device,
                                    baton_share_process *out,
                                    size_t capacity, size_t *count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BATON_SHARE_H */
