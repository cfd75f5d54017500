// chain_probe.cu - What each step a runtime can put around a kernel costs on
// the device timeline (docs/benchmarks.md, "the launch chain").
//
// Usage: bench/launch_chain_probe/run.sh (nvcc and a GPU needed)
//
// Launches N kernels back to back on one stream, each four waves of blocks
// that spin for a quarter of the given kernel time, with one
// pattern of stream operations around every kernel, and prints the time per
// launch above the bare kernel's: a stream wait that is already satisfied,
// an event record, a batch of stream writes, a finalize kernel, a task copy
// on the user's stream or on the control stream with a tag the user's
// stream waits for, and the chain the runtime uses (copy and event on the
// control stream, two event waits on a private stream, kernel, finalize,
// event, the user's stream waiting for the done word).
#include <cuda.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <functional>

#define CK(x) do { auto r = (x); if (r != 0) { printf("err %d at %s:%d\n", (int)r, __FILE__, __LINE__); exit(1);} } while (0)

__global__ void spin(unsigned *counts, unsigned long long ns) {
  unsigned long long s; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(s));
  if (threadIdx.x == 0) atomicAdd(&counts[blockIdx.x], 1u);
  for (;;) { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); if (t - s >= ns) break; }
  __syncthreads();
}
__global__ void fin(unsigned *task, unsigned *done, unsigned gen) {
  if (task[5] >= task[4]) { __threadfence_system(); *(volatile unsigned *)done = gen; }
}
// The same, for a programmatic dependent launch: it may start while the
// kernel before it ends, and waits for that kernel's completion and memory.
__global__ void finPdl(unsigned *task, unsigned *done, unsigned gen) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (task[5] >= task[4]) { __threadfence_system(); *(volatile unsigned *)done = gen; }
}

int main() {
  CK(cudaSetDevice(0));
  cudaStream_t S, Inner, Control;
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&Inner, cudaStreamNonBlocking));
  int lo, hi; CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  CK(cudaStreamCreateWithPriority(&Control, cudaStreamNonBlocking, hi));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int per; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, spin, 64, 0));
  unsigned Blocks = 4u * per * sms;
  unsigned *counts; CK(cudaMalloc(&counts, Blocks * 4));
  unsigned *task; CK(cudaMalloc(&task, 512));
  CK(cudaMemset(task, 0, 512));
  unsigned *host; CK(cudaHostAlloc(&host, 128, 0));
  for (int i = 0; i < 16; ++i) host[i] = 0;
  host[4] = 1; host[5] = 1;  // next >= end: finalize publishes
  CK(cudaMemcpy(task, host, 64, cudaMemcpyHostToDevice));
  unsigned *done = task + 16;
  CUdeviceptr dTask = (CUdeviceptr)task, dDone = (CUdeviceptr)done;
  std::vector<cudaEvent_t> ev(4000);
  for (auto &e : ev) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  const unsigned N = 400;
  printf("%d SMs, %d blocks/SM, %u blocks per launch\n", sms, per, Blocks);
  printf("%-8s %-28s %10s %8s\n", "kernel", "pattern", "us/launch", "+us");
  for (unsigned long long us : {10ull, 100ull}) {
    unsigned long long ns = us * 1000 / 4;
    unsigned gen = 0;
    auto run = [&](const std::function<void(unsigned)> &one) {
      std::vector<double> v;
      for (int r = 0; r < 4; ++r) {
        CK(cudaDeviceSynchronize());
        auto t0 = std::chrono::steady_clock::now();
        for (unsigned i = 0; i < N; ++i) one(i);
        CK(cudaDeviceSynchronize());
        v.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / N);
      }
      std::sort(v.begin() + 1, v.end());
      return v[2];
    };
    auto k = [&](cudaStream_t st) { spin<<<Blocks, 64, 0, st>>>(counts, ns); };
    auto finEarly = [&](cudaStream_t st, unsigned g) {
      cudaLaunchAttribute a = {};
      a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      a.val.programmaticStreamSerializationAllowed = 1;
      cudaLaunchConfig_t c = {};
      c.gridDim = 1; c.blockDim = 1; c.stream = st; c.attrs = &a; c.numAttrs = 1;
      CK(cudaLaunchKernelEx(&c, finPdl, task, done, g));
    };
    struct P { const char *name; std::function<void(unsigned)> f; };
    std::vector<P> pats = {
      {"kernel", [&](unsigned) { k(S); }},
      {"kernel+waitvalue", [&](unsigned) { k(S); CK(cuStreamWaitValue32((CUstream)S, dTask + 16, 1, CU_STREAM_WAIT_VALUE_GEQ)); }},
      {"kernel+event+waitvalue", [&](unsigned i) { k(S); CK(cudaEventRecord(ev[i], S)); CK(cuStreamWaitValue32((CUstream)S, dTask + 16, 1, CU_STREAM_WAIT_VALUE_GEQ)); }},
      {"batch5+kernel+event+wait", [&](unsigned i) {
         CUstreamBatchMemOpParams p[5] = {};
         unsigned offs[5] = {32, 40, 48, 60, 64};
         for (int j = 0; j < 5; ++j) { p[j].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64; p[j].writeValue.address = dTask + offs[j] + 64; p[j].writeValue.value64 = 0; }
         p[3].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32; p[3].writeValue.value = 0;
         p[4].writeValue.address = dTask + 72 + 64;
         CK(cuStreamBatchMemOp((CUstream)S, 5, p, 0));
         k(S); CK(cudaEventRecord(ev[i], S)); CK(cuStreamWaitValue32((CUstream)S, dTask + 16, 1, CU_STREAM_WAIT_VALUE_GEQ)); }},
      {"ctl:h2d+tag | S:wait,k,ev,wait", [&](unsigned i) {
         ++gen;
         CK(cudaMemcpyAsync(task + 32, host, 64, cudaMemcpyHostToDevice, Control));
         CK(cuStreamWriteValue32((CUstream)Control, dTask + 200, gen, CU_STREAM_WRITE_VALUE_DEFAULT));
         CK(cuStreamWaitValue32((CUstream)S, dTask + 200, gen, CU_STREAM_WAIT_VALUE_GEQ));
         k(S); CK(cudaEventRecord(ev[i], S)); CK(cuStreamWaitValue32((CUstream)S, dTask + 16, 1, CU_STREAM_WAIT_VALUE_GEQ)); }},
      {"S:h2d,k,ev,wait", [&](unsigned i) {
         CK(cudaMemcpyAsync(task + 32, host, 64, cudaMemcpyHostToDevice, S));
         k(S); CK(cudaEventRecord(ev[i], S)); CK(cuStreamWaitValue32((CUstream)S, dTask + 16, 1, CU_STREAM_WAIT_VALUE_GEQ)); }},
      {"S:w32x2,k,ev,wait", [&](unsigned i) {
         CK(cuStreamWriteValue32((CUstream)S, dTask + 100, 0, CU_STREAM_WRITE_VALUE_DEFAULT));
         CK(cuStreamWriteValue32((CUstream)S, dTask + 104, 0, CU_STREAM_WRITE_VALUE_DEFAULT));
         k(S); CK(cudaEventRecord(ev[i], S)); CK(cuStreamWaitValue32((CUstream)S, dTask + 16, 1, CU_STREAM_WAIT_VALUE_GEQ)); }},
      {"kernel+finalize", [&](unsigned) { k(S); fin<<<1, 1, 0, S>>>(task, done, 1); }},
      {"kernel+finalize(PDL)", [&](unsigned) { k(S); finEarly(S, 1); }},
      {"S:k,fin,ev,wait (running)", [&](unsigned i) {
         ++gen; k(S); fin<<<1, 1, 0, S>>>(task, done, gen); CK(cudaEventRecord(ev[i], S));
         CK(cuStreamWaitValue32((CUstream)S, dDone, gen, CU_STREAM_WAIT_VALUE_GEQ)); }},
      {"S:k,fin(PDL),ev,wait", [&](unsigned i) {
         ++gen; k(S); finEarly(S, gen); CK(cudaEventRecord(ev[i], S));
         CK(cuStreamWaitValue32((CUstream)S, dDone, gen, CU_STREAM_WAIT_VALUE_GEQ)); }},
      {"h2d(S)+kernel", [&](unsigned) { CK(cudaMemcpyAsync(task + 32, host, 64, cudaMemcpyHostToDevice, S)); k(S); }},
      {"current chain", [&](unsigned i) {
         ++gen;
         CK(cudaMemcpyAsync(task + 32, host, 64, cudaMemcpyHostToDevice, Control));
         CK(cudaEventRecord(ev[3 * i % 3999], Control));
         CK(cudaEventRecord(ev[(3 * i + 1) % 3999], S));
         CK(cudaStreamWaitEvent(Inner, ev[(3 * i + 1) % 3999], 0));
         CK(cudaStreamWaitEvent(Inner, ev[3 * i % 3999], 0));
         k(Inner); fin<<<1, 1, 0, Inner>>>(task, done, gen);
         CK(cudaEventRecord(ev[(3 * i + 2) % 3999], Inner));
         CK(cuStreamWaitValue32((CUstream)S, dDone, gen, CU_STREAM_WAIT_VALUE_GEQ)); }},
    };
    double base = 0;
    for (auto &p : pats) {
      double t = run(p.f);
      if (!base) base = t;
      printf("%5llu us %-28s %10.2f %8.2f\n", us, p.name, t, t - base);
      fflush(stdout);
    }
  }
  return 0;
}
