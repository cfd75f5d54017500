//===- corpus_check.cpp - Variants compute what the originals compute ------===//
//
// Usage: corpus_check MANIFEST XFORMED_DIR [FILTER [RUN]]
//
// For each line of MANIFEST (test/corpus/manifest.txt format) whose module or
// kernel contains FILTER, loads XFORMED_DIR/MODULE (the module after
// baton-ptx, which still holds the original kernels), runs the original
// kernel once as the reference, then the variants:
//   slices of 1 block, of 7 blocks and of one wave; PTB with all co-resident
//   workers and with 3; PTB with 2 workers and slices of 5 blocks while being
//   paused and resumed at random moments until done;
// and compares every `out`/`inout` buffer bit for bit with the reference.
// RUN keeps only the runs whose label starts with it ("ptb:all", "slices"),
// to tell which one hangs.
// Prints one line per kernel (PASS, FAIL with the first difference, or
// REFUSED when baton-ptx gave it no variant) and `N passed, N failed` last.
//
//===----------------------------------------------------------------------===//

#include "LaunchArgs.h"

#include <cstdio>
#include <map>
#include <random>
#include <string_view>

using namespace baton;
using namespace baton::test;

namespace {

struct Run {
  const char *Label;
  Mode LaunchMode;
  uint32_t Width; // 0 = runtime default
  bool Storm;
};

const Run Runs[] = {
    {"slices:1", Mode::Slices, 1, false},
    {"slices:7", Mode::Slices, 7, false},
    {"slices:wave", Mode::Slices, 0, false},
    {"ptb:all", Mode::Ptb, 0, false},
    {"ptb:3", Mode::Ptb, 3, false},
    {"ptb:2+storm", Mode::Ptb, 2, true},
    {"slices:5+storm", Mode::Slices, 5, true},
};

/// Pauses and resumes \p L at random delays until it is done; returns the
/// number of pauses that stopped it with work left.
unsigned storm(Launch &L, std::mt19937_64 &Rng) {
  std::uniform_real_distribution<double> Delay(1.0, 200.0);
  unsigned Pauses = 0;
  for (;;) {
    sleepMicros(Delay(Rng));
    if (!L.pause())
      return Pauses;
    ++Pauses;
    sleepMicros(Delay(Rng) / 8);
    L.resume();
  }
}

struct LineResult {
  enum { Pass, Fail, Refused } Outcome = Pass;
  std::string Detail;
};

LineResult checkLine(Runtime &Rt, Module &M, const ManifestLine &Line,
                     std::string_view RunPrefix, Watchdog &Dog,
                     std::mt19937_64 &Rng) {
  Kernel K = M.kernel(Line.Kernel);
  if (!K.hasVariant(Mode::Slices) && !K.hasVariant(Mode::Ptb))
    return {LineResult::Refused, "no variants"};
  if (K.numParams() != Line.Params.size())
    return {LineResult::Fail, "manifest gives " +
                                  std::to_string(Line.Params.size()) +
                                  " parameters, kernel takes " +
                                  std::to_string(K.numParams())};
  Stream S;
  LaunchArgs Args(Line, S.get());
  LaunchConfig Config;
  Config.Grid = dim3Of(Line.Grid);
  Config.Block = dim3Of(Line.Block);
  Config.SharedMemBytes = Line.SharedMemBytes;
  Config.Stream = S.get();

  Config.LaunchMode = Mode::Original;
  Rt.launch(K, Config, Args.pointers()).wait();
  auto Reference = Args.outputs(S.get());

  std::string Detail;
  unsigned Pauses = 0, Done = 0;
  for (const Run &R : Runs) {
    if (!std::string_view(R.Label).starts_with(RunPrefix))
      continue;
    if (!K.hasVariant(R.LaunchMode)) {
      Detail += std::string(" ") + R.Label + ":missing";
      continue;
    }
    Dog.step(Line.Module + " " + Line.Kernel + " " + R.Label);
    Args.reset(S.get());
    Config.LaunchMode = R.LaunchMode;
    Config.Workers = R.LaunchMode == Mode::Ptb ? R.Width : 0;
    Config.SliceBlocks = R.LaunchMode == Mode::Slices ? R.Width : 0;
    Launch L = Rt.launch(K, Config, Args.pointers());
    if (R.Storm)
      Pauses += storm(L, Rng);
    if (L.wait() != LaunchState::Done)
      return {LineResult::Fail, std::string(R.Label) + ": not done"};
    S.synchronize();
    auto Got = Args.outputs(S.get());
    for (size_t I = 0; I < Got.size(); ++I) {
      std::string Diff = compareBuffers(
          Got[I], Reference[I], Line.Params[Args.outputParams()[I]]);
      if (!Diff.empty())
        return {LineResult::Fail, std::string(R.Label) + ": " + Diff};
    }
    ++Done;
  }
  return {LineResult::Pass, std::to_string(Done) + " runs, " +
                                std::to_string(Pauses) + " pauses" + Detail};
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 3 || Argc > 5) {
    std::fprintf(stderr, "usage: %s MANIFEST XFORMED_DIR [FILTER [RUN]]\n",
                 Argv[0]);
    return 2;
  }
  std::filesystem::path Dir = Argv[2];
  std::string Filter = Argc >= 4 ? Argv[3] : "";
  std::string RunPrefix = Argc == 5 ? Argv[4] : "";
  Checker Check;
  unsigned Refused = 0;
  try {
    auto Rt = runtimeOrSkip();
    if (!Rt)
      return SkipExitCode;
    Watchdog Dog("corpus_check", std::chrono::seconds(300));
    std::printf("corpus_check %s on %s\n", Argv[1], describeDevice(*Rt).c_str());
    std::map<std::string, Module> Modules;
    std::mt19937_64 Rng(42);
    for (const ManifestLine &Line : readManifest(Argv[1])) {
      if (!Filter.empty() && Line.Module.find(Filter) == std::string::npos &&
          Line.Kernel.find(Filter) == std::string::npos)
        continue;
      Dog.step(Line.Module + " " + Line.Kernel);
      LineResult Result;
      try {
        auto It = Modules.find(Line.Module);
        if (It == Modules.end())
          It = Modules.emplace(Line.Module, Rt->loadFile(Dir / Line.Module))
                   .first;
        Result = checkLine(*Rt, It->second, Line, RunPrefix, Dog, Rng);
      } catch (const Error &E) {
        Result = {LineResult::Fail, E.what()};
        if (isStickyError(E)) {
          std::printf("FAIL    %-30s %-32s %s\n", Line.Module.c_str(),
                      Line.Kernel.c_str(), E.what());
          Check.fail("the CUDA context is lost after a fault in " +
                     Line.Module + " " + Line.Kernel +
                     "; the remaining lines were not run");
          break;
        }
      } catch (const std::exception &E) {
        Result = {LineResult::Fail, E.what()};
      }
      const char *Tag = Result.Outcome == LineResult::Pass   ? "PASS"
                        : Result.Outcome == LineResult::Fail ? "FAIL"
                                                             : "REFUSED";
      std::printf("%-7s %-30s %-32s %s\n", Tag, Line.Module.c_str(),
                  Line.Kernel.c_str(), Result.Detail.c_str());
      std::fflush(stdout);
      if (Result.Outcome == LineResult::Pass)
        Check.pass();
      else if (Result.Outcome == LineResult::Fail)
        Check.fail(Line.Module + " " + Line.Kernel + " (manifest line " +
                   std::to_string(Line.LineNumber) + ")");
      else
        ++Refused;
    }
  } catch (const std::exception &E) {
    Check.fail(std::string("exception: ") + E.what());
  }
  std::printf("%u refused (no variants; not counted)\n", Refused);
  return Check.summary();
}
