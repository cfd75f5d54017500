//===- Trace.cpp - Scheduling trace for debugging (BATON_TRACE=1) ---------===//
#include "Trace.h"

#include <cerrno>
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

/// stderr, or BATON_TRACE_FILE opened (truncated) with a buffer of its own;
/// stderr if that cannot be opened, with a warning.
static std::FILE *traceStream() {
  static std::FILE *Stream = [] {
    const char *Path = std::getenv("BATON_TRACE_FILE");
    if (!Path || !*Path)
      return stderr;
    std::FILE *File = std::fopen(Path, "w");
    if (!File) {
      std::fprintf(stderr, "baton: cannot open BATON_TRACE_FILE=%s: %s; "
                           "tracing to stderr\n",
                   Path, std::strerror(errno));
      return stderr;
    }
    std::setvbuf(File, nullptr, _IOFBF, 1 << 20);
    // Flushed when the process exits normally.
    return File;
  }();
  return Stream;
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
  std::fprintf(traceStream(), "baton-trace %10.1f: %s\n", Us, Line);
}

} // namespace baton::detail
