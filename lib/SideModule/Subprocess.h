//===- Subprocess.h - Run ptxas and fatbinary -------------------*- C++ -*-===//
//
// The side module is assembled by the toolkit's own ptxas and fatbinary (the
// formats they write are not documented well enough to write ourselves).
// They run without a shell, so no file name is ever interpreted.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_SIDEMODULE_SUBPROCESS_H
#define BATON_LIB_SIDEMODULE_SUBPROCESS_H

#include <string>
#include <vector>

namespace baton::side {

struct ProcessResult {
  int ExitCode = -1;  ///< -1 if it could not start or was killed
  std::string Output; ///< standard output and error, interleaved
};

/// Runs Argv[0] (a path) with Argv and waits for it.
ProcessResult runProcess(const std::vector<std::string> &Argv);

} // namespace baton::side

#endif // BATON_LIB_SIDEMODULE_SUBPROCESS_H
