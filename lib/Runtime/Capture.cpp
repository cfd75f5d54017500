//===- Capture.cpp - Launches and CUDA graph capture ----------------------===//

#include "baton/Capture.h"

#include "Driver.h"

#include "baton/Runtime.h"

using namespace baton;
using namespace baton::detail;

bool baton::streamCapturing(CUstream Stream) {
  CUstreamCaptureStatus Status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult R = driver().cuStreamIsCapturing(Stream, &Status);
  // An error here is CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (the legacy stream
  // while a blocking stream captures) or a stream the driver does not know;
  // in neither case may Baton issue work around the launch.
  return R != CUDA_SUCCESS || Status != CU_STREAM_CAPTURE_STATUS_NONE;
}

void baton::relaxCaptureModeForThisThread() {
  try {
    CUstreamCaptureMode Mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    driver().cuThreadExchangeStreamCaptureMode(&Mode);
  } catch (const Error &) {
    // No driver: nothing on this thread will call it either.
  }
}

RelaxedCaptureMode::RelaxedCaptureMode() {
  Previous = CU_STREAM_CAPTURE_MODE_RELAXED;
  Exchanged = driver().cuThreadExchangeStreamCaptureMode(&Previous) ==
              CUDA_SUCCESS;
}

RelaxedCaptureMode::~RelaxedCaptureMode() {
  if (Exchanged)
    driver().cuThreadExchangeStreamCaptureMode(&Previous);
}
