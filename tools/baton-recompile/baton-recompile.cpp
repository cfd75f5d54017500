//===- baton-recompile.cpp - Side modules for libraries, offline ----------===//
//
// Recompiles the kernels of shared libraries, executables or fatbins for
// Baton without their sources: each input's embedded PTX is extracted,
// transformed and assembled into a side module in the cache, where the
// launch interposer (libbaton_preload.so) finds it. Prints, per input, where
// the side module is and what became of its kernels; SASS-only and refused
// kernels are listed one by one. See docs/offline.md.
//
//===----------------------------------------------------------------------===//
#include "baton/SideModule/Builder.h"
#include "baton/SideModule/Cache.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <thread>

using namespace baton::side;

namespace {

/// Progress on stderr for inputs with many containers: a line rewritten in
/// place on a terminal, else a line per tenth.
std::function<void(unsigned, unsigned)> progressPrinter(const std::string &Name) {
  bool Terminal = ::isatty(STDERR_FILENO);
  return [Name, Terminal](unsigned Done, unsigned Total) {
    if (Total < 8)
      return;
    if (Terminal) {
      std::cerr << "\r" << Name << ": [" << Done << "/" << Total
                << "] modules recompiled" << (Done == Total ? "\n" : "")
                << std::flush;
    } else if (Done * 10 / Total != (Done - 1) * 10 / Total) {
      std::cerr << Name << ": [" << Done << "/" << Total
                << "] modules recompiled\n";
    }
  };
}

void printSummary(const std::string &Input, const BuildResult &R, bool Quiet) {
  unsigned Both = 0, SliceOnly = 0, PtbOnly = 0, Refused = 0, Sass = 0;
  std::map<std::string, unsigned> Reasons;
  for (const KernelRecord &K : R.Kernels.Kernels) {
    switch (K.Status) {
    case KernelStatus::Variants:
      (K.Slice && K.Ptb ? Both : K.Slice ? SliceOnly : PtbOnly)++;
      break;
    case KernelStatus::Refused:
      ++Refused;
      ++Reasons[K.Reason];
      break;
    case KernelStatus::SassOnly:
      ++Sass;
      break;
    }
  }
  std::cout << Input << ": side module " << R.Dir.string()
            << (R.CacheHit ? " (cached)" : " (built)") << "\n";
  std::cout << "  kernels: " << Both + SliceOnly + PtbOnly
            << " with variants (" << Both << " slice+ptb, " << SliceOnly
            << " slice only, " << PtbOnly << " ptb only), " << Refused
            << " refused, " << Sass << " SASS only (no PTX)\n";
  if (!Reasons.empty()) {
    std::cout << "  refused by reason:";
    for (const auto &[Reason, Count] : Reasons)
      std::cout << " " << Reason << " " << Count << ";";
    std::cout << "\n";
  }
  if (Quiet)
    return;
  for (const KernelRecord &K : R.Kernels.Kernels) {
    if (K.Status == KernelStatus::Refused)
      std::cout << "  refused " << K.Name << ": " << K.Reason << ": "
                << K.Detail << "\n";
    else if (K.Status == KernelStatus::SassOnly)
      std::cout << "  sass-only " << K.Name << " (" << K.Detail
                << "): runs unchanged\n";
    else if (!K.Reason.empty())
      std::cout << "  partial " << K.Name << ": no "
                << (K.Slice ? "ptb" : "slice") << " variant: " << K.Reason
                << ": " << K.Detail << "\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  CLI::App App{"baton-recompile: build Baton side modules for shared "
               "libraries, executables or fatbins from the PTX they embed, "
               "into the cache that libbaton_preload.so reads (see "
               "docs/offline.md).",
               "baton-recompile"};
  std::vector<std::string> Inputs;
  BuildOptions Options;
  std::string CacheDir, CudaBin = defaultCudaBin().string();
  bool Quiet = false, FatbinSectionsOnly = false;
  Options.Jobs = std::max(1u, std::thread::hardware_concurrency());
  App.add_option("inputs", Inputs, "Shared libraries, executables or fatbins")
      ->required();
  App.add_option("--arch", Options.Archs,
                 "GPU architectures to assemble for, comma-separated "
                 "(sm_90, sm_90a, sm_80, ...)")
      ->delimiter(',')
      ->capture_default_str();
  App.add_option("--cache-dir", CacheDir,
                 "Cache directory (default: $BATON_CACHE_DIR, else "
                 "$XDG_CACHE_HOME/baton, else ~/.cache/baton)");
  App.add_option("--cuda-bin", CudaBin,
                 "Directory with ptxas and fatbinary (default: "
                 "$CUDA_PATH/bin, $CUDA_HOME/bin or /usr/local/cuda/bin)")
      ->capture_default_str();
  App.add_option("-j,--jobs", Options.Jobs, "Modules recompiled at once")
      ->capture_default_str();
  App.add_flag("--force", Options.Force,
               "Rebuild even if the cache has the side module");
  App.add_flag("--fatbin-sections-only", FatbinSectionsOnly,
               "Read only .nv_fatbin and __nv_relfatbin, not fatbins "
               "embedded as data in other sections");
  App.add_flag("-q,--quiet", Quiet,
               "Print only the summary, not each refused or SASS-only kernel "
               "nor the progress");
  App.footer("Exit status: 0 when every input has a side module (even one "
             "whose kernels were all refused), 1 otherwise.");
  CLI11_PARSE(App, argc, argv);

  if (!CacheDir.empty()) {
    Options.CacheRoot = std::filesystem::absolute(CacheDir);
  } else if (auto Root = defaultCacheRoot()) {
    Options.CacheRoot = std::filesystem::absolute(*Root);
  } else {
    std::cerr << "baton-recompile: error: no cache directory: set "
                 "BATON_CACHE_DIR or HOME, or pass --cache-dir\n";
    return 1;
  }
  Options.CudaBin = CudaBin;
  Options.DataSections = !FatbinSectionsOnly;

  int Status = 0;
  for (const std::string &Input : Inputs) {
    BuildOptions Per = Options;
    if (!Quiet)
      Per.Progress = progressPrinter(Input);
    BuildResult R;
    if (std::optional<std::string> Err = buildSideModule(Input, Per, R)) {
      std::cerr << *Err << "\n";
      Status = 1;
      continue;
    }
    for (const std::string &W : R.Warnings)
      std::cerr << "warning: " << W << "\n";
    printSummary(Input, R, Quiet);
  }
  return Status;
}
