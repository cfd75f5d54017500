//===- baton/Capture.h - Launches and CUDA graph capture --------*- C++ -*-===//
//
// Baton cannot schedule the replays of a CUDA graph: the driver replays the
// captured kernels itself. So a launch made while its stream is capturing
// is captured unchanged (the original kernel, with no event, private
// stream, host function or registry write of Baton's in the graph), and
// Baton's own threads must not break a capture that another thread runs.
// Under cudaStreamCaptureModeGlobal (PyTorch's torch.cuda.graph default) a
// capture forbids "potentially unsafe" driver calls, cuEventQuery among
// them, on every thread whose mode is not relaxed; such a call fails and
// invalidates the capture. Baton's threads never touch a capturing stream,
// so they run relaxed. See docs/scheduling.md, "CUDA graphs".
//
//===----------------------------------------------------------------------===//
#ifndef BATON_CAPTURE_H
#define BATON_CAPTURE_H

#include <cuda.h>

namespace baton {

/// Whether work issued to \p Stream now would be captured into a graph
/// instead of running: the stream is capturing, or it cannot be used at all
/// because of another stream's capture (the legacy default stream while a
/// blocking stream captures), or the driver cannot say (an unknown stream:
/// the launch then fails on its own). Such a launch must be issued
/// unchanged. Throws baton::Error only if the driver cannot be loaded.
bool streamCapturing(CUstream Stream);

/// Makes the calling thread's driver calls legal for the rest of its life
/// while other threads capture graphs. For threads Baton starts; a no-op
/// (not an error) where there is no driver, as under the scheduler's
/// simulator.
void relaxCaptureModeForThisThread();

/// The same for the duration of a call made on a client's thread; the
/// thread's previous mode is restored on destruction. Throws baton::Error if
/// the driver cannot be loaded.
class RelaxedCaptureMode {
public:
  RelaxedCaptureMode();
  ~RelaxedCaptureMode();
  RelaxedCaptureMode(const RelaxedCaptureMode &) = delete;
  RelaxedCaptureMode &operator=(const RelaxedCaptureMode &) = delete;

private:
  CUstreamCaptureMode Previous = CU_STREAM_CAPTURE_MODE_RELAXED;
  bool Exchanged = false;
};

} // namespace baton

#endif // BATON_CAPTURE_H
