//===- Subprocess.cpp - Run ptxas and fatbinary ---------------------------===//
#include "Subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char **environ;

using namespace baton::side;

ProcessResult baton::side::runProcess(const std::vector<std::string> &Argv) {
  ProcessResult R;
  int Pipe[2];
  if (::pipe2(Pipe, O_CLOEXEC) != 0) {
    R.Output = std::string("pipe: ") + std::strerror(errno);
    return R;
  }
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_adddup2(&Actions, Pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&Actions, Pipe[1], STDERR_FILENO);
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  pid_t Pid;
  int Err = posix_spawn(&Pid, Args[0], &Actions, nullptr, Args.data(), environ);
  posix_spawn_file_actions_destroy(&Actions);
  ::close(Pipe[1]);
  if (Err != 0) {
    ::close(Pipe[0]);
    R.Output = Argv[0] + ": cannot run: " + std::strerror(Err);
    return R;
  }
  char Buffer[4096];
  for (;;) {
    ssize_t N = ::read(Pipe[0], Buffer, sizeof(Buffer));
    if (N > 0)
      R.Output.append(Buffer, size_t(N));
    else if (N == 0 || errno != EINTR)
      break;
  }
  ::close(Pipe[0]);
  int Status = 0;
  while (::waitpid(Pid, &Status, 0) < 0 && errno == EINTR)
    ;
  if (WIFEXITED(Status))
    R.ExitCode = WEXITSTATUS(Status);
  return R;
}
