//===- Process.cpp - Process identity and liveness ------------------------===//

#include "Process.h"

#include <dirent.h>
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

/// PF_EXITING of the task flags (field 9 of /proc/PID/stat): set at the
/// start of do_exit(), long before a killed task releases its files, which
/// for a CUDA process includes tearing down its GPU context (include/linux/
/// sched.h; unchanged since Linux 2.6).
constexpr uint64_t TaskExiting = 0x4;

struct Stat {
  char State = '?';
  uint64_t Flags = 0;
  uint64_t StartTime = 0;

  /// The task is gone or going.
  bool ending() const {
    return State == 'Z' || State == 'X' || (Flags & TaskExiting);
  }
};

/// Fields 3 (state), 9 (flags) and 22 (starttime) of \p Path (a
/// /proc/.../stat file), or false if the task does not exist. The command
/// name, field 2, is in parentheses and may itself hold spaces and
/// parentheses, so fields are counted from the last ')'.
bool readStat(const std::string &Path, Stat &Out) {
  std::ifstream In(Path);
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
    if (Index == 9)
      Out.Flags = std::strtoull(Field.c_str(), nullptr, 10);
    if (Index == 22) {
      Out.StartTime = std::strtoull(Field.c_str(), nullptr, 10);
      return true;
    }
  }
  return false;
}

/// Whether some task of process \p Pid other than one that is ending still
/// runs. The leader's state is not enough: a program whose main thread
/// called pthread_exit() shows as a zombie while its other threads run.
bool anyTaskLives(const std::string &Pid) {
  std::string Dir = "/proc/" + Pid + "/task";
  DIR *D = opendir(Dir.c_str());
  if (!D)
    return false;
  bool Lives = false;
  while (dirent *E = readdir(D)) {
    Stat S;
    if (E->d_name[0] != '.' && readStat(Dir + "/" + E->d_name + "/stat", S) &&
        !S.ending()) {
      Lives = true;
      break;
    }
  }
  closedir(D);
  return Lives;
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
  if (readStat("/proc/self/stat", S))
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
  std::string Pid = std::to_string(Id.Pid);
  Stat S;
  if (!readStat("/proc/" + Pid + "/stat", S) || S.StartTime != Id.StartTime)
    return Liveness::Dead; // exited since kill(), or the pid was reused
  if (!S.ending() || anyTaskLives(Pid))
    return Liveness::Alive;
  return Liveness::Dead; // killed: a zombie, or tearing down

}
