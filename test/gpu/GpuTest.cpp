//===- GpuTest.cpp - Shared harness of Baton's GPU test programs ----------===//

#include "GpuTest.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace baton;
using namespace baton::test;
using baton::detail::driver;

std::unique_ptr<Runtime> baton::test::runtimeOrSkip(const RuntimeOptions &O) {
  try {
    auto Rt = std::make_unique<Runtime>(O);
    check(driver().cuCtxSetCurrent(Rt->context()), "cuCtxSetCurrent");
    return Rt;
  } catch (const Error &E) {
    bool NoDevice = E.kind() == ErrorKind::DriverUnavailable ||
                    E.cudaResult() == CUDA_ERROR_NO_DEVICE ||
                    E.cudaResult() == CUDA_ERROR_INVALID_DEVICE;
    if (!NoDevice)
      throw;
    std::printf("SKIPPED: no CUDA device (%s)\n", E.what());
    return nullptr;
  }
}

std::string baton::test::describeDevice(const Runtime &Rt) {
  const auto &D = driver();
  char Name[256] = {};
  D.cuDeviceGetName(Name, sizeof(Name), Rt.device());
  int Version = 0;
  D.cuDriverGetVersion(&Version);
  return std::string(Name) + ", " + std::to_string(Rt.multiprocessorCount()) +
         " SMs, driver " + std::to_string(Version / 1000) + "." +
         std::to_string(Version % 1000 / 10);
}

void Checker::expect(bool Ok, const std::string &What) {
  if (Ok)
    pass();
  else
    fail(What);
}

void Checker::fail(const std::string &What) {
  std::lock_guard Lock(Mutex);
  ++Failed;
  std::printf("FAIL: %s\n", What.c_str());
  std::fflush(stdout);
}

int Checker::summary() const {
  std::lock_guard Lock(Mutex);
  std::printf("%u passed, %u failed\n", Passed, Failed);
  return Failed ? 1 : 0;
}

Watchdog::Watchdog(std::string ProgramName, std::chrono::seconds L)
    : Program(std::move(ProgramName)), Limit(L) {
  Thread = std::thread([this] {
    std::unique_lock Lock(Mutex);
    if (Done.wait_for(Lock, Limit, [&] { return Finished; }))
      return;
    std::printf("FAIL: %s: watchdog: no completion after %lld s; hung in: "
                "%s\n0 passed, 1 failed\n",
                Program.c_str(), static_cast<long long>(Limit.count()),
                Current.c_str());
    std::fflush(stdout);
    std::_Exit(2);
  });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard Lock(Mutex);
    Finished = true;
  }
  Done.notify_one();
  Thread.join();
}

void Watchdog::step(std::string What) {
  std::lock_guard Lock(Mutex);
  Current = std::move(What);
}

void baton::test::check(CUresult R, const char *Call) {
  baton::detail::check(R, Call);
}

bool baton::test::isStickyError(const Error &E) {
  switch (E.cudaResult()) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    return true;
  default:
    return false;
  }
}

double baton::test::percentile(std::vector<double> &Samples, double P) {
  size_t I = std::min(Samples.size() - 1,
                      size_t(P * double(Samples.size() - 1) + 0.5));
  std::nth_element(Samples.begin(), Samples.begin() + I, Samples.end());
  return Samples[I];
}

void baton::test::sleepMicros(double Micros) {
  using Clock = std::chrono::steady_clock;
  auto Until = Clock::now() + std::chrono::nanoseconds(int64_t(Micros * 1e3));
  if (Micros >= 50)
    std::this_thread::sleep_until(Until);
  while (Clock::now() < Until) {
  }
}

DeviceBuffer::DeviceBuffer(size_t N) : Bytes(N) {
  check(driver().cuMemAlloc(&Ptr, N ? N : 1), "cuMemAlloc");
}

DeviceBuffer::~DeviceBuffer() {
  if (Ptr)
    driver().cuMemFree(Ptr);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&Other) noexcept
    : Ptr(Other.Ptr), Bytes(Other.Bytes) {
  Other.Ptr = 0;
}

void DeviceBuffer::upload(std::span<const uint8_t> Data, CUstream S) {
  check(driver().cuMemcpyHtoDAsync(Ptr, Data.data(), Data.size(), S),
        "cuMemcpyHtoDAsync");
  check(driver().cuStreamSynchronize(S), "cuStreamSynchronize");
}

std::vector<uint8_t> DeviceBuffer::download(CUstream S) const {
  std::vector<uint8_t> Host(Bytes);
  check(driver().cuMemcpyDtoHAsync(Host.data(), Ptr, Bytes, S),
        "cuMemcpyDtoHAsync");
  check(driver().cuStreamSynchronize(S), "cuStreamSynchronize");
  return Host;
}

Stream::Stream(int Priority) {
  check(driver().cuStreamCreateWithPriority(&S, CU_STREAM_NON_BLOCKING,
                                            Priority),
        "cuStreamCreateWithPriority");
}

Stream::~Stream() {
  if (S)
    driver().cuStreamDestroy(S);
}

void Stream::synchronize() const {
  check(driver().cuStreamSynchronize(S), "cuStreamSynchronize");
}

PinnedCounts::PinnedCounts(size_t Count) : N(Count) {
  void *P = nullptr;
  check(detail::driver().cuMemHostAlloc(&P, N * sizeof(uint32_t), 0),
        "cuMemHostAlloc");
  Data = static_cast<uint32_t *>(P);
  std::fill(Data, Data + N, 0xFFFFFFFFu);
}

PinnedCounts::~PinnedCounts() { detail::driver().cuMemFreeHost(Data); }

