//===- BatonctlTest.cpp - batonctl on a registry the test made ------------===//

#include "ShareTest.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <memory>
#include <regex>

using namespace baton::share::test;

namespace {

struct Outcome {
  std::string Output;
  int Status = -1;
};

/// Runs batonctl with \p Args; stdout and stderr together.
Outcome batonctl(const std::string &Args) {
  Outcome R;
  std::string Command = std::string(BATONCTL_PATH) + " " + Args + " 2>&1";
  FILE *P = popen(Command.c_str(), "r");
  if (!P)
    return R;
  std::array<char, 4096> Buf;
  while (size_t N = fread(Buf.data(), 1, Buf.size(), P))
    R.Output.append(Buf.data(), N);
  int Status = pclose(P);
  R.Status = WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
  return R;
}

struct Members {
  explicit Members(const char *Registry) {
    baton_share_join(Registry, 0, BATON_SHARE_LATENCY_CRITICAL, "inference",
                     &Lc);
    baton_share_join(Registry, 0, BATON_SHARE_BEST_EFFORT, "training", &Be);
    uint64_t T = 0;
    baton_share_announce(Lc, &T);
    baton_share_announce(Lc, &T);
    baton_share_end(Lc, T);
    baton_share_count_launches(Be, 12);
    baton_share_should_yield(Be); // pauses once
  }
  ~Members() {
    baton_share_leave(Lc);
    baton_share_leave(Be);
  }
  baton_share Lc = nullptr, Be = nullptr;
};

TEST(Batonctl, ListsTheProcesses) {
  ScratchRegistry R;
  Members M(R.name());
  Outcome Out = batonctl(std::string("--registry ") + R.name());
  ASSERT_EQ(Out.Status, 0) << Out.Output;
  std::string Pid = std::to_string(getpid());
  EXPECT_NE(Out.Output.find(std::string("registry ") + R.name() +
                            ": 2 processes"),
            std::string::npos)
      << Out.Output;
  EXPECT_TRUE(std::regex_search(
      Out.Output,
      std::regex("SLOT +PID +NAME +CLASS +STATE +LC-OUT +ANNOUNCED +ENDED +"
                 "EXPIRED +END +LAUNCHES +PAUSES +RESUMES +BEAT")))
      << Out.Output;
  // LC: 1 outstanding of 2 announced, 1 ended, none expired.
  EXPECT_TRUE(std::regex_search(
      Out.Output, std::regex(" 0 +" + Pid + " inference +LC +busy +1 +2 +1 +0 "
                             "+- +- +- +- +[0-9]+ms")))
      << Out.Output;
  // BE: 12 launches, paused once, not resumed yet.
  EXPECT_TRUE(std::regex_search(
      Out.Output, std::regex(" 1 +" + Pid + " training +BE +paused +- +- +- "
                             "+- +- +12 +1 +0 +[0-9]+ms")))
      << Out.Output;
}

TEST(Batonctl, Json) {
  ScratchRegistry R;
  Members M(R.name());
  Outcome Out = batonctl(std::string("--json -r ") + R.name());
  ASSERT_EQ(Out.Status, 0) << Out.Output;
  EXPECT_NE(Out.Output.find("\"name\": \"inference\", \"class\": \"LC\", "
                            "\"alive\": true, \"dead\": false, \"state\": \"busy\""),
            std::string::npos)
      << Out.Output;
  EXPECT_NE(Out.Output.find("\"lc_outstanding\": 1"), std::string::npos);
  EXPECT_NE(Out.Output.find("\"be_launches\": 12, \"be_pauses\": 1, "
                            "\"be_resumes\": 0, \"be_paused\": true"),
            std::string::npos)
      << Out.Output;
}

TEST(Batonctl, WatchRefreshes) {
  ScratchRegistry R;
  Members M(R.name());
  Outcome Out = batonctl(std::string("--watch --interval 0.05 -n 3 -r ") +
                     R.name());
  ASSERT_EQ(Out.Status, 0) << Out.Output;
  size_t Tables = 0;
  for (size_t At = 0; (At = Out.Output.find("registry /", At)) !=
                      std::string::npos;
       ++At)
    ++Tables;
  EXPECT_EQ(Tables, 3u) << Out.Output;
}

TEST(Batonctl, ShowsDeadProcesses) {
  ScratchRegistry R;
  const char *Name = R.name();
  pid_t Child = fork();
  ASSERT_GE(Child, 0);
  if (Child == 0) {
    baton_share S = nullptr;
    baton_share_join(Name, 0, BATON_SHARE_LATENCY_CRITICAL, "crashed", &S);
    _exit(0); // never leaves
  }
  waitpid(Child, nullptr, 0);
  // Dead, not silent, even once its heartbeat is old.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  Outcome Out = batonctl(std::string("-r ") + R.name());
  EXPECT_EQ(Out.Status, 0);
  EXPECT_TRUE(std::regex_search(
      Out.Output, std::regex(std::to_string(Child) + " crashed +LC +dead ")))
      << Out.Output;
}

TEST(Batonctl, MissingRegistry) {
  ScratchRegistry R;
  Outcome Out = batonctl(std::string("-r ") + R.name());
  EXPECT_EQ(Out.Status, 1);
  EXPECT_NE(Out.Output.find("no process has joined it"), std::string::npos)
      << Out.Output;
  Out = batonctl("-r not-a-name");
  EXPECT_EQ(Out.Status, 2);
  EXPECT_NE(Out.Output.find("is not of the form /name"), std::string::npos)
      << Out.Output;
}

} // namespace
