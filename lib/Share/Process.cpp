//===- Process.cpp - Process identity and liveness ------------------------===//

#include "Process.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace baton::share;

uint64_t baton::share::nowNs() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return uint64_t(T.tv_sec) * 1000000000u + uint64_t(T.tv_nsec);
}

namespace {

struct Stat {
  char State = '?';
  uint64_t StartTime = 0;
};

/// Fields 3 (state) and 22 (starttime) of /proc/PID/stat, or false if the
/// process does not exist. The command name, field 2, is in parentheses and
/// may itself hold spaces and parentheses, so fields are counted from the
/// last ')'.
bool readStat(const std::string &Pid, Stat &Out) {
  std::ifstream In("/proc/" + Pid + "/stat");
  std::string Line;
  if (!In || !std::getline(In, Line))
    return false;
  size_t Close = Line.rfind(')');
  if (Close == std::string::npos)
    return false;
  std::istringstream Fields(Line.substr(Close + 1));
  std::string Field;
  for (int Index = 3; Fields >> Field; ++Index) {
    if (Index == 3)
      Out.State = Field[0];
    if (Index == 22) {
      Out.StartTime = std::strtoull(Field.c_str(), nullptr, 10);
      return true;
    }
  }
  return false;
}

uint64_t pidNamespace(const char *Path) {
  struct stat S;
  return ::stat(Path, &S) == 0 ? uint64_t(S.st_ino) : 0;
}

} // namespace

ProcessId baton::share::thisProcess() {
  ProcessId Id;
  Id.Pid = uint32_t(getpid());
  Id.PidNamespace = pidNamespace("/proc/self/ns/pid");
  Stat S;
  if (readStat("self", S))
    Id.StartTime = S.StartTime;
  return Id;
}

std::string baton::share::programName() {
  std::ifstream In("/proc/self/comm");
  std::string Name;
  if (In && std::getline(In, Name) && !Name.empty())
    return Name;
  return "pid " + std::to_string(getpid());
}

Liveness baton::share::liveness(const ProcessId &Id) {
  // Our namespace cannot change under us in any way Baton supports
  // (unshare(CLONE_NEWPID) affects only children), so it is read once.
  static const uint64_t OwnNamespace = pidNamespace("/proc/self/ns/pid");
  if (Id.PidNamespace != OwnNamespace)
    return Liveness::Unknown;
  if (kill(pid_t(Id.Pid), 0) != 0 && errno == ESRCH)
    return Liveness::Dead;
  if (Id.PidNamespace == 0)
    return Liveness::Alive; // no /proc: kill() is all there is
  Stat S;
  if (!readStat(std::to_string(Id.Pid), S))
    return Liveness::Dead; // exited since kill()
  if (S.State == 'Z' || S.State == 'X' || S.StartTime != Id.StartTime)
    return Liveness::Dead;
  return Liveness::Alive;
}
