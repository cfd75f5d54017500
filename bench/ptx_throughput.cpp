//===- ptx_throughput.cpp - Speed and memory of parse + print -------------===//
//
// Builds one large PTX text by repeating the given modules until it reaches
// the requested size, then times parse + print (and, separately, parse +
// transform + print) on one thread, and reports MB/s and the process's peak
// resident memory over the input size.
//
// usage: ptx_throughput SIZE_MB FILE.ptx...
//
//===----------------------------------------------------------------------===//
#include "baton/PTX/Parser.h"
#include "baton/PTX/Printer.h"
#include "baton/Transform/Transform.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

static double peakRssMB() {
  rusage U{};
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss / 1024.0; // kilobytes on Linux
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::cerr << "usage: ptx_throughput SIZE_MB FILE.ptx...\n";
    return 2;
  }
  size_t Target = std::stoul(argv[1]) << 20;
  std::string Unit;
  for (int I = 2; I < argc; ++I) {
    std::ifstream In(argv[I]);
    std::stringstream SS;
    SS << In.rdbuf();
    Unit += SS.str();
  }
  if (Unit.empty()) {
    std::cerr << "no input\n";
    return 2;
  }
  std::string Input;
  Input.reserve(Target + Unit.size());
  while (Input.size() < Target)
    Input += Unit;
  const double MB = Input.size() / 1048576.0;
  const bool WithTransform = std::getenv("BATON_BENCH_TRANSFORM") != nullptr;

  double Before = peakRssMB();
  auto Start = std::chrono::steady_clock::now();
  size_t Printed = 0;
  {
    auto R = baton::ptx::parseModule(std::move(Input), "bench.ptx");
    if (R.Error) {
      std::cerr << R.Error->str() << "\n";
      return 1;
    }
    if (WithTransform)
      baton::transformModule(*R.Mod, {});
    baton::ptx::printModule(*R.Mod,
                            [&](std::string_view S) { Printed += S.size(); });
  }
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  double Peak = peakRssMB();
  std::printf("%s: input %.1f MB, output %.1f MB, %.3f s, %.1f MB/s, "
              "peak RSS %.1f MB (%.2fx input; %.1f MB before parsing)\n",
              WithTransform ? "parse+transform+print" : "parse+print", MB,
              Printed / 1048576.0, Seconds, MB / Seconds, Peak, Peak / MB,
              Before);
  return 0;
}
