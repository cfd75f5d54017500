//===- CApi.cpp - The C API over the C++ runtime --------------------------===//
//
// Each handle owns one C++ object; each entry point converts exceptions into
// a status and a per-thread message, so no exception crosses the C boundary.
//
//===----------------------------------------------------------------------===//

#include "baton/baton.h"

#include "baton/Runtime.h"

#include <optional>
#include <string>

using namespace baton;

struct baton_runtime_s {
  Runtime Rt;
};
struct baton_module_s {
  Module M;
};
struct baton_kernel_s {
  Kernel K;
};
struct baton_launch_s {
  Launch L;
};

static thread_local std::string LastError;

static baton_status statusOf(ErrorKind Kind) {
  switch (Kind) {
  case ErrorKind::DriverUnavailable:
    return BATON_ERROR_DRIVER_UNAVAILABLE;
  case ErrorKind::Cuda:
    return BATON_ERROR_CUDA;
  case ErrorKind::InvalidArgument:
    return BATON_ERROR_INVALID_ARGUMENT;
  case ErrorKind::NotFound:
    return BATON_ERROR_NOT_FOUND;
  case ErrorKind::InvalidState:
    return BATON_ERROR_INVALID_STATE;
  }
  return BATON_ERROR_INTERNAL;
}

/// Runs \p Body, mapping exceptions to statuses and remembering the message.
template <typename Fn> static baton_status guarded(Fn &&Body) {
  try {
    Body();
    LastError.clear();
    return BATON_SUCCESS;
  } catch (const Error &E) {
    LastError = E.what();
    return statusOf(E.kind());
  } catch (const std::exception &E) {
    LastError = E.what();
    return BATON_ERROR_INTERNAL;
  }
}

static baton_status nullArgument(const char *What) {
  LastError = std::string("null ") + What;
  return BATON_ERROR_INVALID_ARGUMENT;
}

extern "C" {

const char *baton_last_error(void) { return LastError.c_str(); }

baton_status baton_runtime_create(int device, baton_preempt_signal signal,
                                  baton_runtime *out) {
  if (!out)
    return nullArgument("output handle");
  return guarded([&] {
    RuntimeOptions Options;
    Options.Device = device;
    Options.Signal = signal == BATON_PREEMPT_MEMCPY ? PreemptSignal::Memcpy
                                                    : PreemptSignal::StreamWrite;
    *out = new baton_runtime_s{Runtime(Options)};
  });
}

void baton_runtime_destroy(baton_runtime rt) { delete rt; }

baton_status baton_module_load_ptx(baton_runtime rt, const char *ptx,
                                   baton_module *out) {
  if (!rt || !ptx || !out)
    return nullArgument("runtime, PTX or output handle");
  return guarded([&] { *out = new baton_module_s{rt->Rt.loadPtx(ptx)}; });
}

baton_status baton_module_load_image(baton_runtime rt, const void *image,
                                     size_t size, baton_module *out) {
  if (!rt || !image || !out)
    return nullArgument("runtime, image or output handle");
  return guarded([&] {
    auto Bytes = std::span(static_cast<const std::byte *>(image), size);
    *out = new baton_module_s{rt->Rt.loadImage(Bytes)};
  });
}

baton_status baton_module_load_file(baton_runtime rt, const char *path,
                                    baton_module *out) {
  if (!rt || !path || !out)
    return nullArgument("runtime, path or output handle");
  return guarded([&] { *out = new baton_module_s{rt->Rt.loadFile(path)}; });
}

void baton_module_destroy(baton_module module) { delete module; }

baton_status baton_kernel_get(baton_module module, const char *name,
                              baton_kernel *out) {
  if (!module || !name || !out)
    return nullArgument("module, name or output handle");
  return guarded([&] { *out = new baton_kernel_s{module->M.kernel(name)}; });
}

int baton_kernel_has_variant(baton_kernel kernel, baton_mode mode) {
  if (!kernel)
    return 0;
  Mode M = mode == BATON_MODE_SLICES ? Mode::Slices
           : mode == BATON_MODE_PTB  ? Mode::Ptb
                                     : Mode::Original;
  return kernel->K.hasVariant(M) ? 1 : 0;
}

size_t baton_kernel_num_params(baton_kernel kernel) {
  return kernel ? kernel->K.numParams() : 0;
}

void baton_kernel_destroy(baton_kernel kernel) { delete kernel; }

baton_status baton_launch_kernel(baton_runtime rt, baton_kernel kernel,
                                 const baton_launch_config *config,
                                 void *const *args, size_t num_args,
                                 baton_launch *out) {
  if (!rt || !kernel || !config || !out || (num_args && !args))
    return nullArgument("runtime, kernel, config, arguments or output handle");
  return guarded([&] {
    LaunchConfig C;
    C.Grid = {config->grid[0], config->grid[1], config->grid[2]};
    C.Block = {config->block[0], config->block[1], config->block[2]};
    C.SharedMemBytes = config->shared_mem_bytes;
    C.Stream = static_cast<CUstream>(config->stream);
    switch (config->mode) {
    case BATON_MODE_ORIGINAL:
      C.LaunchMode = Mode::Original;
      break;
    case BATON_MODE_SLICES:
      C.LaunchMode = Mode::Slices;
      break;
    case BATON_MODE_PTB:
      C.LaunchMode = Mode::Ptb;
      break;
    default:
      throw Error(ErrorKind::InvalidArgument,
                  "unknown baton_mode " + std::to_string(config->mode));
    }
    C.SliceBlocks = config->slice_blocks;
    C.Workers = config->workers;
    *out = new baton_launch_s{
        rt->Rt.launch(kernel->K, C, std::span(args, num_args))};
  });
}

baton_status baton_launch_pause(baton_launch launch, int *paused) {
  if (!launch)
    return nullArgument("launch");
  return guarded([&] {
    bool P = launch->L.pause();
    if (paused)
      *paused = P ? 1 : 0;
  });
}

baton_status baton_launch_resume(baton_launch launch) {
  if (!launch)
    return nullArgument("launch");
  return guarded([&] { launch->L.resume(); });
}

baton_status baton_launch_wait(baton_launch launch, baton_launch_state *state) {
  if (!launch)
    return nullArgument("launch");
  return guarded([&] {
    LaunchState S = launch->L.wait();
    if (state)
      *state = S == LaunchState::Paused ? BATON_LAUNCH_PAUSED
                                        : BATON_LAUNCH_DONE;
  });
}

baton_status baton_launch_progress(baton_launch launch, uint32_t *done,
                                   uint32_t *total) {
  if (!launch)
    return nullArgument("launch");
  return guarded([&] {
    Progress P = launch->L.progress();
    if (done)
      *done = P.Done;
    if (total)
      *total = P.Total;
  });
}

void baton_launch_destroy(baton_launch launch) { delete launch; }

} // extern "C"
