//===- RoundTripFuzzer.cpp - libFuzzer target for checkRoundTrip ---------===//
#include "FuzzChecks.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Failure = baton::fuzz::checkRoundTrip(
      std::string(reinterpret_cast<const char *>(Data), Size));
  if (!Failure.empty()) {
    std::fprintf(stderr, "checkRoundTrip: %s\n", Failure.c_str());
    std::abort();
  }
  return 0;
}
