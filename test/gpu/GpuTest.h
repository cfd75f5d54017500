//===- GpuTest.h - Shared harness of Baton's GPU test programs --*- C++ -*-===//
//
// The GPU tests are plain executables (the GPU machine has no GoogleTest):
// they count checks, print `N passed, N failed` last and return nonzero on a
// failure. Where there is no driver or no device they print
// `SKIPPED: no CUDA device (reason)` and return 77, which ctest reports as a
// skip. A watchdog turns a hang into a clear failure naming the step that
// hung. Device memory and streams come through the runtime's driver table,
// so the programs start (and skip) on machines without libcuda.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_GPU_GPUTEST_H
#define BATON_TEST_GPU_GPUTEST_H

#include "Driver.h"

#include "baton/Runtime.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace baton::test {

inline constexpr int SkipExitCode = 77;

/// Creates the runtime and makes its context current on the calling thread,
/// or prints the SKIPPED line and returns null when the machine has no usable
/// driver or device. Other errors propagate.
std::unique_ptr<Runtime> runtimeOrSkip(const RuntimeOptions &Options = {});

/// "NVIDIA H100 80GB HBM3, 132 SMs, driver 13.0".
std::string describeDevice(const Runtime &Rt);

/// Counts checks; prints failures as they happen.
class Checker {
public:
  void expect(bool Ok, const std::string &What);
  void pass() { ++Passed; }
  void fail(const std::string &What);
  unsigned passed() const { return Passed; }
  unsigned failed() const { return Failed; }
  /// Prints `N passed, N failed` and returns the exit status.
  int summary() const;

private:
  mutable std::mutex Mutex;
  unsigned Passed = 0, Failed = 0;
};

/// Aborts the process with a message naming the current step if it runs
/// longer than the limit. A GPU hang must not turn into a silent CI timeout.
class Watchdog {
public:
  Watchdog(std::string Program, std::chrono::seconds Limit);
  ~Watchdog();
  void step(std::string What);

private:
  std::string Program;
  std::chrono::seconds Limit;
  std::mutex Mutex;
  std::condition_variable Done;
  bool Finished = false;
  std::string Current = "start-up";
  std::thread Thread;
};

/// Device memory, freed on scope exit.
class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t Bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer &&Other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  CUdeviceptr get() const { return Ptr; }
  /// The CUdeviceptr itself, as a kernel argument slot.
  CUdeviceptr *slot() { return &Ptr; }
  size_t size() const { return Bytes; }
  void upload(std::span<const uint8_t> Data, CUstream S);
  std::vector<uint8_t> download(CUstream S) const;

private:
  CUdeviceptr Ptr = 0;
  size_t Bytes = 0;
};

/// Pinned host memory for N 32-bit counters (async copies of the record
/// kernel's counts), poisoned with 0xFFFFFFFF until written; freed on scope
/// exit.
struct PinnedCounts {
  explicit PinnedCounts(size_t N);
  ~PinnedCounts();
  PinnedCounts(const PinnedCounts &) = delete;
  PinnedCounts &operator=(const PinnedCounts &) = delete;
  uint32_t *Data = nullptr;
  size_t N = 0;
};

/// A non-blocking stream, destroyed on scope exit.
class Stream {
public:
  explicit Stream(int Priority = 0);
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  CUstream get() const { return S; }
  void synchronize() const;

private:
  CUstream S = nullptr;
};

/// Throws baton::Error naming \p Call unless \p R is CUDA_SUCCESS.
void check(CUresult R, const char *Call);

/// Errors after which the context is unusable (a faulting kernel).
bool isStickyError(const Error &E);

/// The \p P quantile (0 to 1) of \p Samples, which must not be empty: the
/// sample at the nearest rank. Reorders \p Samples.
double percentile(std::vector<double> &Samples, double P);

/// Sleeps about \p Micros microseconds (spins below 50 us, where the OS
/// timer is too coarse to give the short delays the tests want).
void sleepMicros(double Micros);

} // namespace baton::test

#endif // BATON_TEST_GPU_GPUTEST_H
