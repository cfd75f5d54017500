// Why a paused PTB worker may start one block more at full occupancy.
//
// The PTB loop, written out in CUDA (thread 0 reads the preempt flag and
// claims a block with atomicAdd, a barrier hands it to the block, the body
// runs, a barrier ends it), with a timestamp around every step. A watcher
// kernel timestamps the moment the flag becomes visible on the device (T);
// every block that starts after T says which step of its worker took the
// time. The body is one of:
//   0 spin on %globaltimer     2 spin with __nanosleep(1000) per poll
//   1 spin, lane 0 of a warp   3 spin on clock64 (no globaltimer reads)
//   4 dense FMAs, the timer read every 256 of them
// Usage: preempt_probe SPIN_NS WORKERS_PER_SM FLAG_WORD BODY THREADS
// (FLAG_WORD: the flag's distance from the cursor in 4-byte words).
// bench/claim_starvation/run.sh runs the configurations of docs/benchmarks.md.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <thread>
#include <chrono>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned long long gt() {
  unsigned long long T;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T));
  return T;
}

struct Rec { unsigned long long prevEnd, t0, t1, t2, t3, end; };

__global__ void workers(unsigned *cursor, volatile unsigned *flag, unsigned end,
                        unsigned spin_ns, int body, Rec *rec) {
  __shared__ unsigned v;
  __shared__ unsigned long long s0, s1, s2;
  unsigned long long prevEnd = 0;
  for (;;) {
    if (threadIdx.x == 0) {
      unsigned long long a = gt();
      unsigned f = *flag;
      unsigned long long b = gt();
      if (f == 7u) b = 0;
      unsigned x = f ? end : atomicAdd(cursor, 1u);
      unsigned long long c = gt();
      if (x == 0xffffffffu) c = 0;
      v = x; s0 = a; s1 = b; s2 = c;
    }
    __syncthreads();
    unsigned x = v;
    unsigned long long t3 = gt();
    if (x >= end) break;
    unsigned long long start = gt();
    if (body == 2) {          // polls the timer every ~1 us
      while (gt() - start < spin_ns) __nanosleep(1000);
    } else if (body == 3) {   // SM clock, no globaltimer reads
      long long c0 = clock64();
      while (clock64() - c0 < (long long)spin_ns * 2) {}
    } else if (body == 4) {   // arithmetic, timer read every 256 FMAs
      float a = threadIdx.x, b = 1.0001f;
      while (gt() - start < spin_ns)
        for (int i = 0; i < 256; ++i) a = fmaf(a, b, 0.5f);
      if (a == 12345.f) rec[0].t0 = 1;
    } else if (body != 1 || (threadIdx.x & 31) == 0)
      while (gt() - start < spin_ns) {}
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned long long e = gt();
      rec[x] = {prevEnd, s0, s1, s2, t3, e};
      prevEnd = e;
    }
    __syncthreads();
  }
}

__global__ void watcher(volatile unsigned *flag, unsigned long long *seen) {
  while (*flag == 0) {}
  *seen = gt();
}

int main(int argc, char **argv) {
  unsigned spin = argc > 1 ? atoi(argv[1]) : 50000;
  int perSm = argc > 2 ? atoi(argv[2]) : 16;
  int flagW = argc > 3 ? atoi(argv[3]) : 1;
  int body = argc > 4 ? atoi(argv[4]) : 0;
  int threads = argc > 5 ? atoi(argv[5]) : 64;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  unsigned nworkers = sms * perSm - (perSm >= 16 ? perSm : 0);
  unsigned blocks = 1u << 22;
  unsigned *buf; Rec *rec; unsigned long long *seen;
  cudaMalloc(&buf, 8192);
  cudaMalloc(&rec, blocks * sizeof(Rec));
  cudaMalloc(&seen, 8);
  int lo, hi;
  cudaDeviceGetStreamPriorityRange(&lo, &hi);
  cudaStream_t work, watch, ctl;
  cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking);
  cudaStreamCreateWithPriority(&watch, cudaStreamNonBlocking, hi);
  cudaStreamCreateWithPriority(&ctl, cudaStreamNonBlocking, hi);
  // Load the memset kernel now: lazy loading while workers spin deadlocks.
  cudaMemsetAsync(buf, 0, 4, ctl);
  cudaDeviceSynchronize();
  std::vector<Rec> h;
  std::vector<double> drains, lateMax;
  int late = 0, late20 = 0, segF = 0, segA = 0, segB = 0, segW = 0, readBefore = 0;
  srand(1);
  const int pauses = 40;
  for (int p = 0; p < pauses; ++p) {
    cudaMemset(buf, 0, 8192);
    cudaMemset(rec, 0, blocks * sizeof(Rec));
    cudaDeviceSynchronize();
    watcher<<<1, 1, 0, watch>>>(buf + flagW, seen);
    workers<<<nworkers, threads, 0, work>>>(buf, buf + flagW, blocks, spin, body, rec);
    std::this_thread::sleep_for(std::chrono::microseconds(2000 + rand() % 3000));
    cudaMemsetAsync(buf + flagW, 1, 1, ctl);
    cudaDeviceSynchronize();
    unsigned long long T;
    cudaMemcpy(&T, seen, 8, cudaMemcpyDeviceToHost);
    unsigned claimed;
    cudaMemcpy(&claimed, buf, 4, cudaMemcpyDeviceToHost);
    unsigned n = std::min(claimed, blocks);
    h.resize(n);
    cudaMemcpy(h.data(), rec, n * sizeof(Rec), cudaMemcpyDeviceToHost);
    unsigned long long lastEnd = 0;
    double worst = 0;
    for (auto &r : h) {
      lastEnd = std::max(lastEnd, r.end);
      if (r.t3 <= T) continue;
      ++late;
      double d = (r.t3 - (double)T) / 1e3;
      worst = std::max(worst, d);
      if (r.t1 < T) ++readBefore;
      if (d > 20) {
        ++late20;
        double parts[4] = {(r.t0 - (double)r.prevEnd) / 1e3, (r.t1 - (double)r.t0) / 1e3,
                           (r.t2 - (double)r.t1) / 1e3, (r.t3 - (double)r.t2) / 1e3};
        if (!r.prevEnd) parts[0] = 0;
        int m = std::max_element(parts, parts + 4) - parts;
        (m == 0 ? segW : m == 1 ? segF : m == 2 ? segA : segB)++;
      }
    }
    drains.push_back((lastEnd - (double)T) / 1e3);
    lateMax.push_back(worst);
  }
  std::sort(drains.begin(), drains.end());
  std::sort(lateMax.begin(), lateMax.end());
  printf("spin %5u %2d/SM flag word %4d body %d threads %3d: drain p50 %7.1f p99 %7.1f max %7.1f | late starts %5d (flag read before T %5d) worst p50 %6.1f max %6.1f | >20us %4d in wait/flag/atomic/barrier %d/%d/%d/%d\n",
         spin, perSm, flagW, body, threads, drains[pauses / 2], drains[pauses * 99 / 100], drains.back(),
         late, readBefore, lateMax[pauses / 2], lateMax.back(), late20, segW, segF, segA, segB);
  return 0;
}
