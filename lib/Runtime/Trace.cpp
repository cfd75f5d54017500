//===- Trace.cpp - Scheduling trace for debugging (BATON_TRACE=1) ---------===//
#include "Trace.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace baton::detail {

bool tracing() {
  static const bool On = [] {
    const char *V = std::getenv("BATON_TRACE");
    return V && *V && std::strcmp(V, "0") != 0;
  }();
  return On;
}

void trace(const char *Format, ...) {
  static const auto Start = std::chrono::steady_clock::now();
  double Us = std::chrono::duration<double, std::micro>(
                  std::chrono::steady_clock::now() - Start)
                  .count();
  char Line[512];
  va_list Args;
  va_start(Args, Format);
  std::vsnprintf(Line, sizeof Line, Format, Args);
  va_end(Args);
  std::fprintf(stderr, "baton-trace %10.1f: %s\n", Us, Line);
}

} // namespace baton::detail
