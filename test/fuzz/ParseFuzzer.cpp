//===- ParseFuzzer.cpp - libFuzzer target for checkParse ---------===//
#include "FuzzChecks.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Failure = baton::fuzz::checkParse(
      std::string(reinterpret_cast<const char *>(Data), Size));
  if (!Failure.empty()) {
    std::fprintf(stderr, "checkParse: %s\n", Failure.c_str());
    std::abort();
  }
  return 0;
}
