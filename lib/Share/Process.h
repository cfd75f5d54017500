//===- Process.h - Who a process is, and whether it still lives -*- C++ -*-===//
//
// A slot names its owner by pid, pid namespace and start time. The pid alone
// is not enough: a dead peer's pid may be reused, and a zombie (killed, not
// yet reaped by its parent) or a process still exiting answers kill(pid, 0).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_SHARE_PROCESS_H
#define BATON_LIB_SHARE_PROCESS_H

#include <cstdint>
#include <string>

namespace baton::share {

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of a host.
uint64_t nowNs();

struct ProcessId {
  uint32_t Pid = 0;
  uint64_t PidNamespace = 0; ///< 0 where /proc is not mounted
  uint64_t StartTime = 0;    ///< clock ticks after boot (/proc/PID/stat)
};

/// The calling process, read afresh (a forked child is another process).
ProcessId thisProcess();

/// The short name of the program ("python3").
std::string programName();

enum class Liveness {
  Alive,
  Dead,    ///< gone, a zombie, or its pid now belongs to another process
  Unknown, ///< in another pid namespace: its pid means nothing here
};

/// Checks \p Id with kill(pid, 0) and /proc/PID/stat: a few microseconds
/// (more for a process whose main thread ended: then each of its tasks is
/// read). A process counts as dead from the moment it starts to exit: a
/// killed CUDA process may take long to tear its context down.
Liveness liveness(const ProcessId &Id);

} // namespace baton::share

#endif // BATON_LIB_SHARE_PROCESS_H
