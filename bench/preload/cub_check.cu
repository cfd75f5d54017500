// CUB's device-wide algorithms on random data, each result checked against
// the CPU: a program whose kernels Baton has not seen, with blocks that
// wait for one another (the decoupled look-back of scans, radix sort's
// onesweep, select). Built with nvcc as any CUDA program is, run by
// test/Preload/cub-check.sh plain, preloaded best-effort, and preloaded
// next to a latency-critical peer. Prints one line per algorithm and
// "cub_check: N passed, M failed"; exits 1 on a mismatch.
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

namespace {

#define CHECK_CUDA(Call)                                                     \
  do {                                                                       \
    cudaError_t E = (Call);                                                  \
    if (E != cudaSuccess) {                                                  \
      std::fprintf(stderr, "cub_check: %s: %s\n", #Call,                     \
                   cudaGetErrorString(E));                                   \
      std::exit(2);                                                          \
    }                                                                        \
  } while (0)

template <typename T> T *upload(const std::vector<T> &Host) {
  T *Dev = nullptr;
  CHECK_CUDA(cudaMalloc(&Dev, Host.size() * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(Dev, Host.data(), Host.size() * sizeof(T),
                        cudaMemcpyHostToDevice));
  return Dev;
}

template <typename T> std::vector<T> download(const T *Dev, size_t N) {
  std::vector<T> Host(N);
  CHECK_CUDA(cudaMemcpy(Host.data(), Dev, N * sizeof(T),
                        cudaMemcpyDeviceToHost));
  return Host;
}

/// Runs a CUB call twice, as CUB wants: once to size its temporary storage.
template <typename F> void withTemp(F &&Call) {
  size_t Bytes = 0;
  CHECK_CUDA(Call(nullptr, Bytes));
  void *Temp = nullptr;
  CHECK_CUDA(cudaMalloc(&Temp, Bytes));
  CHECK_CUDA(Call(Temp, Bytes));
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(Temp));
}

struct IsEven {
  __host__ __device__ bool operator()(uint32_t X) const { return X % 2 == 0; }
};

unsigned Passed = 0, Failed = 0;

void report(const char *Name, bool Ok) {
  std::printf("%s %s\n", Ok ? "PASS" : "FAIL", Name);
  (Ok ? Passed : Failed)++;
}

} // namespace

int main(int Argc, char **Argv) {
  int Rounds = Argc > 1 ? std::atoi(Argv[1]) : 1;
  const size_t N = (1u << 22) + 12345; // not a multiple of any tile
  std::mt19937 Rng(7);
  std::vector<uint32_t> Keys(N), Values(N);
  for (size_t I = 0; I < N; ++I) {
    Keys[I] = Rng();
    Values[I] = uint32_t(I);
  }
  uint32_t *DKeys = upload(Keys), *DValues = upload(Values);
  uint32_t *DOut = nullptr, *DOutValues = nullptr;
  CHECK_CUDA(cudaMalloc(&DOut, N * sizeof(uint32_t)));
  CHECK_CUDA(cudaMalloc(&DOutValues, N * sizeof(uint32_t)));
  uint64_t *DSum = nullptr;
  int *DHist = nullptr, *DCount = nullptr;
  CHECK_CUDA(cudaMalloc(&DSum, sizeof(uint64_t)));
  CHECK_CUDA(cudaMalloc(&DHist, 257 * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&DCount, sizeof(int)));

  // The CPU's answers.
  std::vector<uint64_t> Wide(Keys.begin(), Keys.end());
  uint64_t Sum = std::accumulate(Wide.begin(), Wide.end(), uint64_t(0));
  std::vector<uint32_t> Scan(N);
  std::partial_sum(Keys.begin(), Keys.end(), Scan.begin());
  std::vector<uint32_t> Order(N);
  std::iota(Order.begin(), Order.end(), 0u);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](uint32_t A, uint32_t B) { return Keys[A] < Keys[B]; });
  std::vector<int> Hist(256, 0);
  for (uint32_t K : Keys)
    ++Hist[K & 255];
  std::vector<uint32_t> Even;
  for (uint32_t K : Keys)
    if (K % 2 == 0)
      Even.push_back(K);

  std::vector<uint32_t> Bytes(N);
  for (size_t I = 0; I < N; ++I)
    Bytes[I] = Keys[I] & 255;
  uint32_t *DBytes = upload(Bytes);

  for (int R = 0; R < Rounds; ++R) {
    withTemp([&](void *T, size_t &B) {
      return cub::DeviceReduce::Sum(T, B, DKeys, DSum, N);
    });
    report("DeviceReduce::Sum (u32 to u64)", download(DSum, 1)[0] == Sum);

    withTemp([&](void *T, size_t &B) {
      return cub::DeviceScan::InclusiveSum(T, B, DKeys, DOut, N);
    });
    report("DeviceScan::InclusiveSum", download(DOut, N) == Scan);

    withTemp([&](void *T, size_t &B) {
      return cub::DeviceRadixSort::SortPairs(T, B, DKeys, DOut, DValues,
                                             DOutValues, N);
    });
    std::vector<uint32_t> SortedValues = download(DOutValues, N);
    report("DeviceRadixSort::SortPairs", SortedValues == Order);

    withTemp([&](void *T, size_t &B) {
      return cub::DeviceHistogram::HistogramEven(T, B, DBytes, DHist, 257, 0u,
                                                 256u, int(N));
    });
    report("DeviceHistogram::HistogramEven",
           download(DHist, 256) == Hist);

    withTemp([&](void *T, size_t &B) {
      return cub::DeviceSelect::If(T, B, DKeys, DOut, DCount, int(N),
                                   IsEven());
    });
    int Count = download(DCount, 1)[0];
    report("DeviceSelect::If",
           Count == int(Even.size()) && download(DOut, Count) == Even);
  }
  std::printf("cub_check: %u passed, %u failed\n", Passed, Failed);
  return Failed ? 1 : 0;
}
