//===- baton-ptx.cpp - PTX-to-PTX tool that adds Baton variants -----------===//
//
// Reads a PTX module, adds <kernel>__baton_slice and <kernel>__baton_ptb for
// every selected kernel that can safely have them, and writes the module with
// the originals untouched. Refused kernels are reported as warnings (and in
// --report) with the reason and location. With --fit-registers it first
// assembles the module with ptxas to learn each original's register count,
// and gives the variants the register budget that keeps the original's
// occupancy (baton/Transform/RegisterBudget.h).
//
//===----------------------------------------------------------------------===//
#include "baton/PTX/Parser.h"
#include "baton/PTX/Printer.h"
#include "baton/SideModule/Builder.h"
#include "baton/SideModule/Registers.h"
#include "baton/Transform/Linkage.h"
#include "baton/Transform/Report.h"
#include "baton/Transform/Transform.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace {

/// Shell-style pattern: '*' any run of characters, '?' any one character.
bool globMatch(std::string_view Pattern, std::string_view Text) {
  size_t P = 0, T = 0, Star = std::string_view::npos, Mark = 0;
  while (T < Text.size()) {
    if (P < Pattern.size() && (Pattern[P] == '?' || Pattern[P] == Text[T])) {
      ++P;
      ++T;
    } else if (P < Pattern.size() && Pattern[P] == '*') {
      Star = P++;
      Mark = T;
    } else if (Star != std::string_view::npos) {
      P = Star + 1;
      T = ++Mark;
    } else {
      return false;
    }
  }
  while (P < Pattern.size() && Pattern[P] == '*')
    ++P;
  return P == Pattern.size();
}

bool readInput(const std::string &Path, std::string &Out) {
  if (Path == "-") {
    Out.assign(std::istreambuf_iterator<char>(std::cin), {});
    return true;
  }
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    std::cerr << Path << ": error: cannot open input: " << std::strerror(errno)
              << "\n";
    return false;
  }
  std::ostringstream SS;
  SS << In.rdbuf();
  Out = std::move(SS).str();
  return true;
}

bool writeOutput(const std::string &Path, const baton::ptx::Module &M) {
  std::FILE *Out = Path == "-" ? stdout : std::fopen(Path.c_str(), "wb");
  if (!Out) {
    std::cerr << Path << ": error: cannot open output: "
              << std::strerror(errno) << "\n";
    return false;
  }
  bool Ok = true;
  baton::ptx::printModule(M, [&](std::string_view S) {
    Ok &= std::fwrite(S.data(), 1, S.size(), Out) == S.size();
  });
  Ok &= std::fflush(Out) == 0;
  if (Out != stdout)
    Ok &= std::fclose(Out) == 0;
  if (!Ok)
    std::cerr << Path << ": error: write failed: " << std::strerror(errno)
              << "\n";
  return Ok;
}

/// The variants' register budgets for module \p M (of text \p Source) on
/// GPUs of \p Wanted, from an assembly in a temporary directory; an error
/// message if the PTX cannot run there or the assembly fails.
std::optional<std::string> fitRegisters(const std::string &Source,
                                        const baton::ptx::Module &M,
                                        const baton::side::Arch &Wanted,
                                        const baton::SmLimits &Limits,
                                        const std::filesystem::path &CudaBin,
                                        baton::RegisterBudgetFn &Out) {
  namespace fs = std::filesystem;
  std::optional<baton::side::Arch> Target = baton::side::moduleTarget(M);
  std::optional<baton::side::Arch> As =
      Target ? baton::side::assemblyArch(*Target, Wanted) : Wanted;
  if (!As)
    return "its PTX targets " + Target->name() + ", which cannot run on " +
           Wanted.name();
  std::error_code EC;
  std::string Template =
      (fs::temp_directory_path(EC) / "baton-ptx-XXXXXX").string();
  if (EC || !::mkdtemp(Template.data()))
    return "cannot create a temporary directory: " +
           std::string(std::strerror(errno));
  fs::path Dir = Template;
  std::optional<std::string> Err = baton::side::fitRegisters(
      Source, *As, Limits, baton::symbolDefinedElsewhere(M).has_value(), CudaBin,
      Dir / "module", Out);
  fs::remove_all(Dir, EC);
  return Err;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App App{
      "baton-ptx: add preemptible Baton variants to the kernels of a PTX "
      "module.\n\nFor each kernel K it adds K__baton_slice and K__baton_ptb "
      "(see docs/cli.md and docs/variants.md), keeps every original function "
      "unchanged, and reports kernels it refuses with the reason and line.",
      "baton-ptx"};
  std::string Input, Output = "-", ReportPath;
  std::vector<std::string> Variants = {"slice", "ptb"};
  std::vector<std::string> Kernels, Excluded;
  bool ParseOnly = false, FailOnRefusal = false, Quiet = false;
  std::string FitArch, CudaBin = baton::side::defaultCudaBin().string();

  App.add_option("input", Input, "PTX file to read ('-' for standard input)")
      ->required();
  App.add_option("-o,--output", Output,
                 "Where to write the PTX ('-' for standard output)")
      ->capture_default_str();
  App.add_option("--variants", Variants,
                 "Variants to add, comma-separated: slice, ptb")
      ->delimiter(',')
      ->check(CLI::IsMember({"slice", "ptb"}))
      ->capture_default_str();
  App.add_option("-k,--kernel", Kernels,
                 "Transform only kernels whose name matches this pattern "
                 "('*' and '?' wildcards); repeatable");
  App.add_option("--exclude-kernel", Excluded,
                 "Do not transform kernels matching this pattern; repeatable");
  App.add_option("--report", ReportPath,
                 "Write a JSON report: per kernel the variants made or the "
                 "refusal reasons, and static facts for the scheduler");
  App.add_flag("--parse-only", ParseOnly,
               "Parse and print the module unchanged (a round-trip check)");
  App.add_flag("--fail-on-refusal", FailOnRefusal,
               "Exit with status 3 if a selected kernel misses a requested "
               "variant");
  App.add_option("--fit-registers", FitArch,
                 "Assemble the module for the GPU of this architecture "
                 "(sm_90, sm_80, ...; PTX for sm_90a assembles as such) "
                 "first, and limit each kernel's variants to the registers "
                 "that keep the original's occupancy there (.maxnreg)");
  App.add_option("--cuda-bin", CudaBin,
                 "Directory with the ptxas that --fit-registers runs")
      ->capture_default_str();
  App.add_flag("-q,--quiet", Quiet, "Do not print refusal warnings");
  App.footer("Exit status: 0 on success, 1 on unreadable or malformed input, "
             "3 with --fail-on-refusal when a kernel was refused.");
  CLI11_PARSE(App, argc, argv);

  std::string Source;
  if (!readInput(Input, Source))
    return 1;
  std::string Name = Input == "-" ? "<stdin>" : Input;
  std::string Original = FitArch.empty() ? std::string() : Source;
  auto Parsed = baton::ptx::parseModule(std::move(Source), Name);
  if (Parsed.Error) {
    std::cerr << Parsed.Error->str() << "\n";
    return 1;
  }
  baton::ptx::Module &M = *Parsed.Mod;
  baton::RegisterBudgetFn Budgets;
  if (!FitArch.empty() && !ParseOnly) {
    std::optional<baton::side::Arch> Wanted =
        FitArch.starts_with("sm_") ? baton::side::parseArch(FitArch)
                                   : std::nullopt;
    std::optional<baton::SmLimits> Limits =
        Wanted ? baton::smLimits(Wanted->Number) : std::nullopt;
    if (!Limits) {
      std::cerr << "baton-ptx: error: --fit-registers: no occupancy limits "
                   "known for '"
                << FitArch << "' (expected sm_70 ... sm_121, e.g. sm_90a)\n";
      return 1;
    }
    // A module ptxas cannot assemble still gets its variants, with their
    // own register counts.
    if (auto Err = fitRegisters(Original, M, *Wanted, *Limits, CudaBin, Budgets))
      std::cerr << Name << ": warning: --fit-registers: " << *Err
                << "; the variants keep their own register counts\n";
  }

  bool Refused = false;
  if (!ParseOnly) {
    baton::TransformOptions Opts;
    Opts.MakeSlice = std::find(Variants.begin(), Variants.end(), "slice") !=
                     Variants.end();
    Opts.MakePtb =
        std::find(Variants.begin(), Variants.end(), "ptb") != Variants.end();
    Opts.SelectKernel = [&](std::string_view K) {
      for (const std::string &P : Excluded)
        if (globMatch(P, K))
          return false;
      if (Kernels.empty())
        return true;
      for (const std::string &P : Kernels)
        if (globMatch(P, K))
          return true;
      return false;
    };
    Opts.RegisterBudget = std::move(Budgets);
    baton::TransformResult R = baton::transformModule(M, Opts);
    if (!Quiet)
      for (const auto &D : R.Diagnostics)
        std::cerr << D.str() << "\n";
    for (const auto &K : R.Kernels)
      if (K.Selected && ((Opts.MakeSlice && !K.SliceMade) ||
                         (Opts.MakePtb && !K.PtbMade)))
        Refused = true;
    if (!ReportPath.empty()) {
      std::ofstream Report(ReportPath);
      Report << baton::reportToJson(R, Name);
      if (!Report) {
        std::cerr << ReportPath << ": error: cannot write the report\n";
        return 1;
      }
    }
  }
  if (!writeOutput(Output, M))
    return 1;
  return FailOnRefusal && Refused ? 3 : 0;
}
