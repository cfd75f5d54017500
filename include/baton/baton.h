/*===- baton/baton.h - C API of the Baton host runtime ----------*- C -*-===*\
 *
 * A C interface over baton/Runtime.h, for other languages (Python ctypes,
 * Rust, Go). Objects are opaque handles; every function returns a
 * baton_status, and on failure baton_last_error() gives the message (per
 * thread, valid until the next Baton call on that thread). Semantics are
 * those of the C++ API; see Runtime.h for pause/resume and stream ordering.
 *
 * No CUDA header is needed: streams and contexts are passed as void*
 * (a CUstream / CUcontext of the driver API, or a cudaStream_t).
\*===----------------------------------------------------------------------===*/
#ifndef BATON_BATON_H
#define BATON_BATON_H

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
extern "C" {
#else
#include <stddef.h>
#include <stdint.h>
#endif

typedef enum baton_status {
  BATON_SUCCESS = 0,
  BATON_ERROR_DRIVER_UNAVAILABLE = 1, /* no libcuda.so.1, or too old */
  BATON_ERROR_CUDA = 2,               /* a CUDA call failed */
  BATON_ERROR_INVALID_ARGUMENT = 3,
  BATON_ERROR_NOT_FOUND = 4,          /* no such kernel, variant or file */
  BATON_ERROR_INVALID_STATE = 5,      /* e.g. resuming a running launch */
  BATON_ERROR_INTERNAL = 6            /* an unexpected C++ exception */
} baton_status;

typedef enum baton_mode {
  BATON_MODE_ORIGINAL = 0,
  BATON_MODE_SLICES = 1,
  BATON_MODE_PTB = 2
} baton_mode;

typedef enum baton_preempt_signal {
  BATON_PREEMPT_STREAM_WRITE = 0,
  BATON_PREEMPT_MEMCPY = 1
} baton_preempt_signal;

typedef enum baton_launch_state {
  BATON_LAUNCH_RUNNING = 0,
  BATON_LAUNCH_PAUSED = 1,
  BATON_LAUNCH_DONE = 2,
  BATON_LAUNCH_FAILED = 3
} baton_launch_state;

typedef struct baton_runtime_s *baton_runtime;
typedef struct baton_module_s *baton_module;
typedef struct baton_kernel_s *baton_kernel;
typedef struct baton_launch_s *baton_launch;

typedef struct baton_launch_config {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_mem_bytes;
  void *stream;          /* CUstream; NULL = the legacy default stream */
  baton_mode mode;
  uint32_t slice_blocks; /* 0 = one wave */
  uint32_t workers;      /* 0 = co-resident maximum */
} baton_launch_config;

/* The calling thread's last error message ("" if none). */
const char *baton_last_error(void);

/* device: CUDA ordinal; signal: how pause() raises the preempt flag. */
baton_status baton_runtime_create(int device, baton_preempt_signal signal,
                                  baton_runtime *out);
void baton_runtime_destroy(baton_runtime rt);

baton_status baton_module_load_ptx(baton_runtime rt, const char *ptx,
                                   baton_module *out);
baton_status baton_module_load_image(baton_runtime rt, const void *image,
                                     size_t size, baton_module *out);
baton_status baton_module_load_file(baton_runtime rt, const char *path,
                                    baton_module *out);
void baton_module_destroy(baton_module module);

baton_status baton_kernel_get(baton_module module, const char *name,
                              baton_kernel *out);
/* Whether the kernel has the variant for mode (Original: always 1). */
int baton_kernel_has_variant(baton_kernel kernel, baton_mode mode);
size_t baton_kernel_num_params(baton_kernel kernel);
void baton_kernel_destroy(baton_kernel kernel);

/* args: num_args pointers to argument values, as for cuLaunchKernel. */
baton_status baton_launch_kernel(baton_runtime rt, baton_kernel kernel,
                                 const baton_launch_config *config,
                                 void *const *args, size_t num_args,
                                 baton_launch *out);
/* *paused is set to 1 if the launch stopped with work left, else 0. */
baton_status baton_launch_pause(baton_launch launch, int *paused);
baton_status baton_launch_resume(baton_launch launch);
baton_status baton_launch_wait(baton_launch launch, baton_launch_state *state);
baton_status baton_launch_progress(baton_launch launch, uint32_t *done,
                                   uint32_t *total);
/* Completes the launch if it is paused (its stream must see it complete),
   then frees it. */
void baton_launch_destroy(baton_launch launch);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BATON_BATON_H */
