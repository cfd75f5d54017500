// The "unmodified training program" of the launch-interposer demo: plain C++
// over libtrainkernels.so, knowing nothing of Baton.
//
//   train --steps N            N steps (after warm-up), then it/s and the
//                              parameters' checksum
//   train --seconds S          steps for S seconds, each step's completion
//                              time recorded
//   [--stop-file F]            with --seconds: stop early once F exists
//   [--batch B --inputs I --hidden H --layers L --classes C --warmup W]
//   [--json FILE]              the results as JSON
//   [--load-module FILE]       meanwhile, a thread loads and unloads FILE (a
//                              cubin) through the CUDA runtime every 20 ms,
//                              as a library that loads kernels at their
//                              first use (cuDNN's engines) would; prints
//                              how many loads returned
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern "C" {
int tk_init(int Batch, int Inputs, int Hidden, int Layers, int Classes,
            unsigned Seed);
int tk_step(void);
float tk_loss(void);
unsigned long long tk_checksum(void);
void tk_shutdown(void);
}

namespace {

double wallSeconds() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

} // namespace

int main(int argc, char **argv) {
  int Steps = 0, Warmup = 5, Batch = 2048, Inputs = 1024, Hidden = 2048,
      Layers = 3, Classes = 1000;
  double Seconds = 0;
  const char *Json = nullptr, *StopFile = nullptr, *LoadModule = nullptr;
  for (int I = 1; I + 1 < argc; I += 2) {
    std::string Flag = argv[I];
    const char *Value = argv[I + 1];
    if (Flag == "--steps")
      Steps = std::atoi(Value);
    else if (Flag == "--seconds")
      Seconds = std::atof(Value);
    else if (Flag == "--warmup")
      Warmup = std::atoi(Value);
    else if (Flag == "--batch")
      Batch = std::atoi(Value);
    else if (Flag == "--inputs")
      Inputs = std::atoi(Value);
    else if (Flag == "--hidden")
      Hidden = std::atoi(Value);
    else if (Flag == "--layers")
      Layers = std::atoi(Value);
    else if (Flag == "--classes")
      Classes = std::atoi(Value);
    else if (Flag == "--json")
      Json = Value;
    else if (Flag == "--stop-file")
      StopFile = Value;
    else if (Flag == "--load-module")
      LoadModule = Value;
    else {
      std::fprintf(stderr, "train: unknown option %s\n", Flag.c_str());
      return 2;
    }
  }
  if ((Steps <= 0) == (Seconds <= 0)) {
    std::fprintf(stderr, "train: give --steps N or --seconds S\n");
    return 2;
  }
  if (tk_init(Batch, Inputs, Hidden, Layers, Classes, 1234) != 0)
    return 1;
  for (int I = 0; I < Warmup; ++I)
    if (tk_step() != 0)
      return 1;
  std::atomic<bool> Training{true};
  std::atomic<int> Loads{0}, LoadFailures{0};
  std::thread Loader;
  if (LoadModule)
    Loader = std::thread([&] {
      while (Training.load()) {
        cudaLibrary_t Library = nullptr;
        if (cudaLibraryLoadFromFile(&Library, LoadModule, nullptr, nullptr, 0,
                                    nullptr, nullptr, 0) == cudaSuccess &&
            cudaLibraryUnload(Library) == cudaSuccess)
          ++Loads;
        else
          ++LoadFailures;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  std::vector<double> Done;
  double Start = wallSeconds();
  auto Stopped = [&] {
    FILE *F = StopFile ? std::fopen(StopFile, "r") : nullptr;
    if (F)
      std::fclose(F);
    return F != nullptr;
  };
  while (Steps > 0 ? int(Done.size()) < Steps
                   : wallSeconds() - Start < Seconds && !Stopped()) {
    if (tk_step() != 0) {
      Training = false;
      if (Loader.joinable())
        Loader.join();
      return 1;
    }
    Done.push_back(wallSeconds());
  }
  Training = false;
  if (Loader.joinable()) {
    Loader.join();
    std::printf("train: %d module loads, %d failed\n", Loads.load(),
                LoadFailures.load());
  }
  double Elapsed = Done.back() - Start;
  float Loss = tk_loss();
  unsigned long long Checksum = tk_checksum();
  tk_shutdown();
  double Rate = Done.size() / Elapsed;
  std::printf("train: %zu steps in %.3f s, %.2f it/s, loss %.6f, checksum "
              "%016llx\n",
              Done.size(), Elapsed, Rate, Loss, Checksum);
  if (Json) {
    FILE *Out = std::fopen(Json, "w");
    if (!Out) {
      std::perror(Json);
      return 1;
    }
    std::fprintf(Out,
                 "{\"steps\": %zu, \"seconds\": %.6f, \"it_per_s\": %.4f, "
                 "\"loss\": %.9g, \"checksum\": \"%016llx\", \"start\": %.6f, "
                 "\"step_done\": [",
                 Done.size(), Elapsed, Rate, Loss, Checksum, Start);
    for (size_t I = 0; I < Done.size(); ++I)
      std::fprintf(Out, "%s%.6f", I ? ", " : "", Done[I]);
    std::fprintf(Out, "]}\n");
    std::fclose(Out);
  }
  return 0;
}
