// LD_PRELOAD diagnostic: print a native backtrace when std::terminate runs.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <execinfo.h>
#include <unistd.h>
static void onTerminate() {
  void *Frames[64];
  int N = backtrace(Frames, 64);
  std::fprintf(stderr, "=== std::terminate, backtrace:\n");
  backtrace_symbols_fd(Frames, N, 2);
  std::abort();
}
__attribute__((constructor)) static void install() { std::set_terminate(onTerminate); }
