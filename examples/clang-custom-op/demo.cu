// Runs the custom op as a training job would: Iterations launches in a
// chain (each layer's output is the next one's input), then writes the
// final output to a file. With --interfere, a second thread plays an
// inference client: it launches a short kernel on its own stream, marked
// latency-critical, every few hundred microseconds, so a Baton scheduler
// (BATON_SCHEDULE=best-effort) pauses and resumes the op's launches.
//
// The same source is built with and without the Baton plugin; the outputs
// must be bitwise identical (run.sh compares them).
#include "custom_op.h"

#include "baton/cuda_launch.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

__global__ void inference_step(float *State, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  float X = State[I];
  for (int Step = 0; Step < 256; ++Step)
    X = X * 0.999f + 0.001f;
  State[I] = X;
}

bool ok(cudaError_t E, const char *What) {
  if (E == cudaSuccess)
    return true;
  std::fprintf(stderr, "demo: %s: %s\n", What, cudaGetErrorString(E));
  return false;
}

std::vector<float> pseudoRandom(size_t N, uint32_t Seed, float Scale) {
  std::vector<float> V(N);
  for (float &X : V) {
    Seed = Seed * 1664525u + 1013904223u;
    X = Scale * (float((Seed >> 8) & 0xFFFF) / 65535.f - 0.5f);
  }
  return V;
}

float *upload(const std::vector<float> &V) {
  float *D = nullptr;
  if (!ok(cudaMalloc(&D, V.size() * sizeof(float)), "cudaMalloc") ||
      !ok(cudaMemcpy(D, V.data(), V.size() * sizeof(float),
                     cudaMemcpyHostToDevice),
          "cudaMemcpy"))
    std::exit(1);
  return D;
}

/// The inference client: latency-critical launches until told to stop.
void interfere(std::atomic<bool> &Stop, std::atomic<int> &Requests) {
  int Least = 0, Greatest = 0;
  cudaDeviceGetStreamPriorityRange(&Least, &Greatest);
  cudaStream_t Lc;
  cudaStreamCreateWithPriority(&Lc, cudaStreamNonBlocking, Greatest);
  baton_set_stream_class(Lc, BATON_CLASS_LATENCY_CRITICAL);
  constexpr int N = 132 * 256;
  float *State = upload(std::vector<float>(N, 1.f));
  while (!Stop.load()) {
    inference_step<<<N / 256, 256, 0, Lc>>>(State, N);
    ok(cudaStreamSynchronize(Lc), "inference step");
    ++Requests;
    std::this_thread::sleep_for(std::chrono::microseconds(300));
  }
  cudaFree(State);
  cudaStreamDestroy(Lc);
}

} // namespace

int main(int Argc, char **Argv) {
  int Iterations = 20;
  const char *OutPath = nullptr;
  bool Interfere = false;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--iterations") && I + 1 < Argc)
      Iterations = std::atoi(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--out") && I + 1 < Argc)
      OutPath = Argv[++I];
    else if (!std::strcmp(Argv[I], "--interfere"))
      Interfere = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--iterations N] [--out FILE] [--interfere]\n",
                   Argv[0]);
      return 2;
    }
  }

  constexpr int M = 2048, N = 1024, K = 1024; // N == K: outputs chain
  float *A = upload(pseudoRandom(size_t(M) * K, 1, 2.f));
  float *W = upload(pseudoRandom(size_t(K) * N, 2, 0.1f));
  float *Bias = upload(pseudoRandom(N, 3, 0.2f));
  float *Gamma = upload(pseudoRandom(N, 4, 1.f));
  float *Beta = upload(pseudoRandom(N, 5, 0.5f));
  float *Hidden = nullptr, *Out = nullptr;
  ok(cudaMalloc(&Hidden, size_t(M) * N * sizeof(float)), "cudaMalloc");
  ok(cudaMalloc(&Out, size_t(M) * N * sizeof(float)), "cudaMalloc");

  cudaStream_t Train;
  ok(cudaStreamCreateWithFlags(&Train, cudaStreamNonBlocking), "stream");
  std::atomic<bool> Stop{false};
  std::atomic<int> Requests{0};
  std::thread Client;
  if (Interfere)
    Client = std::thread(interfere, std::ref(Stop), std::ref(Requests));

  auto Start = std::chrono::steady_clock::now();
  for (int I = 0; I < Iterations; ++I) {
    // Layer I reads what layer I-1 wrote (A for the first); the linear
    // kernel has read Out before the norm kernel overwrites it.
    const float *In = I == 0 ? A : Out;
    customLinearGeluNorm({In, W, Bias, Gamma, Beta, Hidden, Out}, M, N, K,
                         Train);
  }
  bool Good = ok(cudaStreamSynchronize(Train), "training stream");
  double Ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - Start)
                  .count();
  Stop = true;
  if (Client.joinable())
    Client.join();

  std::vector<float> Result(size_t(M) * N);
  Good &= ok(cudaMemcpy(Result.data(), Out, Result.size() * sizeof(float),
                        cudaMemcpyDeviceToHost),
             "cudaMemcpy (result)");
  double Sum = 0;
  for (float X : Result)
    Sum += X;
  baton_routing_stats S = baton_get_routing_stats();
  std::printf("demo: %d iterations in %.1f ms, checksum %.6f; inference "
              "requests %d; routed: %llu best-effort, %llu latency-critical, "
              "%llu resumes\n",
              Iterations, Ms, Sum, Requests.load(), S.best_effort,
              S.latency_critical, S.resumes);
  if (OutPath) {
    FILE *F = std::fopen(OutPath, "wb");
    Good &= F && std::fwrite(Result.data(), sizeof(float), Result.size(), F) ==
                     Result.size();
    if (F)
      std::fclose(F);
  }
  for (float *P : {A, W, Bias, Gamma, Beta, Hidden, Out})
    cudaFree(P);
  cudaStreamDestroy(Train);
  return Good ? 0 : 1;
}
