//===- Report.cpp - What the interposer tells the user --------------------===//
#include "Report.h"

#include "LaunchRouter.h"

#include <unistd.h>

bool baton::preload::verbose() { return verboseRouting(); }

void baton::preload::report(const std::string &Message) {
  std::string Line = "baton-preload: " + Message + "\n";
  // One write(2): stdio may split a line, and the program may have closed or
  // redirected stdout; stderr is what a user reads.
  ssize_t Ignored = ::write(STDERR_FILENO, Line.data(), Line.size());
  (void)Ignored;
}
