// Nineteenth session probe: which SM runs which ctaid, and which ticket each
// worker's first claim gets, for a launch shaped like mm_t (288 x 128 threads,
// 72 KiB dynamic shared memory, 3 per SM).
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <map>
#include <cmath>

struct Rec { unsigned ctaid, smid, ticket; unsigned long long t0, t1; };

__device__ unsigned long long gtime() {
  unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t;
}

__global__ void probe(unsigned *next, volatile unsigned *preempt, Rec *out, unsigned spinNs) {
  extern __shared__ unsigned char smem[];
  __shared__ unsigned v;
  if (threadIdx.x == 0) {
    unsigned long long t0 = gtime();
    unsigned sm; asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    unsigned p = *preempt;
    unsigned t = p > sm ? ~0u : atomicAdd(next, 1);
    v = t;
    out[blockIdx.x] = {blockIdx.x, sm, t, t0, gtime()};
  }
  __syncthreads();
  smem[threadIdx.x] = v;
  unsigned long long s = gtime();
  while (gtime() - s < spinNs) {}
}

int main(int argc, char **argv) {
  int blocks = argc > 1 ? atoi(argv[1]) : 288;
  int shared = argc > 2 ? atoi(argv[2]) : 73728 + 48;
  int rounds = 5;
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
  int perSm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, probe, 128, shared);
  unsigned *next, *pre; Rec *out;
  cudaMalloc(&next, 4); cudaMalloc(&pre, 4); cudaMalloc(&out, blocks * sizeof(Rec));
  cudaMemset(pre, 0, 4);
  printf("blocks %d shared %d perSm %d\n", blocks, shared, perSm);
  for (int r = 0; r < rounds; ++r) {
    cudaMemset(next, 0, 4);
    probe<<<blocks, 128, shared>>>(next, pre, out, 50000);
    std::vector<Rec> h(blocks);
    cudaMemcpy(h.data(), out, blocks * sizeof(Rec), cudaMemcpyDeviceToHost);
    unsigned long long tmin = ~0ull; for (auto &x : h) tmin = std::min(tmin, x.t0);
    int same = 0; double absd = 0; long maxd = 0;
    std::map<unsigned, std::vector<unsigned>> bySmC, bySmT;
    for (auto &x : h) {
      same += x.ticket == x.ctaid;
      long d = long(x.ticket) - long(x.ctaid); absd += std::abs(d); maxd = std::max(maxd, std::labs(d));
      bySmC[x.smid].push_back(x.ctaid); bySmT[x.smid].push_back(x.ticket);
    }
    // Spearman-like: correlation of ticket with ctaid.
    double mc = (blocks - 1) / 2.0, num = 0, den = 0;
    for (auto &x : h) { num += (x.ctaid - mc) * (x.ticket - mc); den += (x.ctaid - mc) * (x.ctaid - mc); }
    int triples = 0; for (auto &[s, v] : bySmC) triples += v.size() >= 3;
    // start spread and claim latency
    unsigned long long tmax = 0, lat = 0; for (auto &x : h) { tmax = std::max(tmax, x.t0); lat += x.t1 - x.t0; }
    printf("round %d: ticket==ctaid %d/%d, mean |ticket-ctaid| %.1f, max %ld, corr %.3f, SMs used %zu (>=3 blocks: %d), start spread %.2f us, mean claim %.2f us\n",
           r, same, blocks, absd / blocks, maxd, num / den, bySmC.size(), triples, (tmax - tmin) / 1e3, lat / 1e3 / blocks);
    if (r == rounds - 1) {
      printf("first 12 SMs by smid: ctaids | tickets\n");
      int k = 0;
      for (auto &[s, v] : bySmC) {
        if (k++ >= 12) break;
        printf("  sm %3u:", s); for (auto c : v) printf(" %3u", c); printf(" |");
        for (auto t : bySmT[s]) printf(" %3u", t); printf("\n");
      }
      printf("ctaid -> smid for ctaid 0..31:");
      for (int c = 0; c < 32 && c < blocks; ++c) printf(" %u", h[c].smid); printf("\n");
    }
  }
  return 0;
}
