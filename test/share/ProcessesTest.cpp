//===- ProcessesTest.cpp - Peers in other processes: work, death, silence ---===//
//
// Each test forks latency-critical peers that join the test's registry on
// their own, and watches them from the parent as a best-effort member would.
// A child talks to the parent through a pipe, one byte per step, and leaves
// with _exit (never returning into GoogleTest).
//
//===----------------------------------------------------------------------===//

#include "ShareTest.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <memory>

using namespace baton::share::test;
using namespace std::chrono_literals;

namespace {

/// A forked child running \p Body with pipes to and from the parent.
class Peer {
public:
  using Body = std::function<int(Peer &)>;
  explicit Peer(const Body &Run) {
    if (pipe(ToChild) != 0 || pipe(ToParent) != 0)
      throw std::runtime_error("pipe failed");
    Pid = fork();
    if (Pid < 0)
      throw std::runtime_error("fork failed");
    if (Pid == 0) {
      close(ToChild[1]);
      close(ToParent[0]);
      _exit(Run(*this));
    }
    close(ToChild[0]);
    close(ToParent[1]);
  }
  ~Peer() {
    if (Pid > 0 && !Reaped) {
      kill(Pid, SIGKILL);
      waitpid(Pid, nullptr, 0);
    }
    close(ToChild[1]);
    close(ToParent[0]);
  }
  pid_t pid() const { return Pid; }

  // Child side.
  void tell(char C) { (void)!write(ToParent[1], &C, 1); }
  char hear() {
    char C = 0;
    return read(ToChild[0], &C, 1) == 1 ? C : 0;
  }
  // Parent side.
  void say(char C) { (void)!write(ToChild[1], &C, 1); }
  char listen() {
    char C = 0;
    return read(ToParent[0], &C, 1) == 1 ? C : 0;
  }
  /// Exit status, or -1 if killed.
  int reap() {
    int Status = 0;
    waitpid(Pid, &Status, 0);
    Reaped = true;
    return WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
  }

private:
  pid_t Pid = -1;
  int ToChild[2] = {-1, -1}, ToParent[2] = {-1, -1};
  bool Reaped = false;
};

baton_share joinOrExit(const char *Registry, baton_share_class Class,
                       const char *Name) {
  baton_share S = nullptr;
  if (baton_share_join(Registry, 0, Class, Name, &S) != BATON_SHARE_OK)
    _exit(10);
  return S;
}

/// A peer that joins as LC, announces, says 'a', and waits to be killed.
Peer::Body announceAndHang(const char *Registry, unsigned LeaseMs = 0) {
  return [=](Peer &P) {
    baton_share S = joinOrExit(Registry, BATON_SHARE_LATENCY_CRITICAL, "hang");
    uint64_t T = 0;
    if (baton_share_set_lease(S, LeaseMs) != BATON_SHARE_OK ||
        baton_share_announce(S, &T) != BATON_SHARE_OK)
      return 11;
    P.tell('a');
    for (;;)
      pause();
  };
}

struct BeMember {
  explicit BeMember(const char *Registry) {
    EXPECT_EQ(baton_share_join(Registry, 0, BATON_SHARE_BEST_EFFORT, "be", &S),
              BATON_SHARE_OK)
        << baton_share_last_error();
  }
  ~BeMember() { baton_share_leave(S); }
  bool yields() { return baton_share_should_yield(S) == 1; }
  baton_share S = nullptr;
};

TEST(ShareProcesses, PeersAnnounceAndEnd) {
  ScratchRegistry R;
  BeMember Be(R.name());
  constexpr int Rounds = 50;
  const char *Name = R.name();
  Peer Lc([Name](Peer &P) {
    baton_share S = joinOrExit(Name, BATON_SHARE_LATENCY_CRITICAL, "lc");
    for (int I = 0; I < Rounds; ++I) {
      uint64_t T = 0;
      if (P.hear() != 'g' || baton_share_announce(S, &T) != BATON_SHARE_OK)
        return 11;
      P.tell('a');
      if (P.hear() != 'e' || baton_share_end(S, T) != BATON_SHARE_OK)
        return 12;
      P.tell('e');
    }
    baton_share_leave(S);
    return 0;
  });
  for (int I = 0; I < Rounds; ++I) {
    Lc.say('g');
    ASSERT_EQ(Lc.listen(), 'a');
    EXPECT_TRUE(Be.yields()) << "round " << I;
    Lc.say('e');
    ASSERT_EQ(Lc.listen(), 'e');
    EXPECT_FALSE(Be.yields()) << "round " << I;
  }
  EXPECT_EQ(Lc.reap(), 0);
  auto List = listOf(R.name());
  ASSERT_EQ(List.size(), 1u); // the peer left
  EXPECT_EQ(List[0].be_pauses, uint64_t(Rounds));
  EXPECT_EQ(List[0].be_resumes, uint64_t(Rounds));
}

// What the scheduler asks before it runs originals while idle: whether an
// LC process other than this one is there at all, with work or without.
TEST(ShareProcesses, LcPeersCountOtherLatencyCriticalProcesses) {
  ScratchRegistry R;
  BeMember Be(R.name());
  auto peers = [&] {
    uint32_t N = ~0u;
    EXPECT_EQ(baton_share_lc_peers(Be.S, &N), BATON_SHARE_OK);
    return N;
  };
  EXPECT_EQ(peers(), 0u);
  // This process's own LC membership is no peer.
  baton_share Own = nullptr;
  ASSERT_EQ(baton_share_join(R.name(), 0, BATON_SHARE_LATENCY_CRITICAL,
                             "own", &Own),
            BATON_SHARE_OK);
  EXPECT_EQ(peers(), 0u);
  const char *Name = R.name();
  auto joinsAs = [Name](baton_share_class Class) {
    return [Name, Class](Peer &P) {
      baton_share S = joinOrExit(Name, Class, "peer");
      P.tell('j');
      P.hear(); // stays joined, idle, until told
      baton_share_leave(S);
      return 0;
    };
  };
  Peer OtherBe(joinsAs(BATON_SHARE_BEST_EFFORT));
  ASSERT_EQ(OtherBe.listen(), 'j');
  EXPECT_EQ(peers(), 0u);
  Peer Lc(joinsAs(BATON_SHARE_LATENCY_CRITICAL));
  ASSERT_EQ(Lc.listen(), 'j');
  EXPECT_EQ(peers(), 1u);
  Lc.say('q');
  EXPECT_EQ(Lc.reap(), 0);
  EXPECT_EQ(peers(), 0u);
  OtherBe.say('q');
  EXPECT_EQ(OtherBe.reap(), 0);
  baton_share_leave(Own);
  EXPECT_EQ(baton_share_lc_peers(Be.S, nullptr),
            BATON_SHARE_ERROR_INVALID_ARGUMENT);
}

TEST(ShareProcesses, ManyPeersAtOnce) {
  ScratchRegistry R;
  BeMember Be(R.name());
  const char *Name = R.name();
  std::vector<std::unique_ptr<Peer>> Peers;
  for (int I = 0; I < 8; ++I)
    Peers.push_back(std::make_unique<Peer>([Name](Peer &P) {
      baton_share S = joinOrExit(Name, BATON_SHARE_LATENCY_CRITICAL, "lc");
      uint64_t T = 0;
      baton_share_announce(S, &T);
      P.tell('a');
      if (P.hear() != 'e')
        return 12;
      baton_share_end(S, T);
      P.tell('e');
      P.hear(); // stays joined until told
      baton_share_leave(S);
      return 0;
    }));
  for (auto &P : Peers)
    ASSERT_EQ(P->listen(), 'a');
  uint64_t N = 0;
  baton_share_lc_outstanding(Be.S, &N);
  EXPECT_EQ(N, 8u);
  for (size_t I = 0; I < Peers.size(); ++I) {
    Peers[I]->say('e');
    ASSERT_EQ(Peers[I]->listen(), 'e');
    baton_share_lc_outstanding(Be.S, &N);
    EXPECT_EQ(N, 7 - I);
  }
  EXPECT_EQ(listOf(R.name()).size(), 9u);
  for (auto &P : Peers) {
    P->say('q');
    EXPECT_EQ(P->reap(), 0);
  }
  EXPECT_EQ(listOf(R.name()).size(), 1u);
}

// The peer is killed and not reaped: a zombie still answers kill(pid, 0),
// so this is the check of /proc/PID/stat.
TEST(ShareProcesses, KilledPeerReleasesWithinTheBound) {
  ScratchRegistry R;
  BeMember Be(R.name());
  Peer Lc(announceAndHang(R.name()));
  ASSERT_EQ(Lc.listen(), 'a');
  EXPECT_TRUE(Be.yields());
  kill(Lc.pid(), SIGKILL);
  // The bound for a peer in our pid namespace: one PidCheckPeriod (10 ms)
  // after the kernel has made it a zombie; 200 ms leaves room for a loaded
  // test machine.
  auto Took = waitFor([&] { return !Be.yields(); }, 2s);
  EXPECT_LT(Took, 200ms);
  EXPECT_EQ(Lc.reap(), -1);
  // Seen dead while it held Be back: its slot is reclaimed already.
  auto List = listOf(R.name());
  ASSERT_EQ(List.size(), 1u);
  EXPECT_EQ(List[0].cls, BATON_SHARE_BEST_EFFORT);
  EXPECT_EQ(List[0].be_pauses, 1u);
  EXPECT_EQ(List[0].be_resumes, 1u);
}

TEST(ShareProcesses, KilledAndReapedPeerReleasesWithinTheBound) {
  ScratchRegistry R;
  BeMember Be(R.name());
  Peer Lc(announceAndHang(R.name()));
  ASSERT_EQ(Lc.listen(), 'a');
  EXPECT_TRUE(Be.yields());
  kill(Lc.pid(), SIGKILL);
  EXPECT_EQ(Lc.reap(), -1);
  EXPECT_LT(waitFor([&] { return !Be.yields(); }, 2s), 200ms);
}

// A program whose main thread ended shows as a zombie in /proc/PID/stat
// while its other threads (here, the heartbeat) run: it is alive.
TEST(ShareProcesses, PeerWhoseMainThreadEndedIsAlive) {
  ScratchRegistry R;
  BeMember Be(R.name());
  const char *Name = R.name();
  Peer Lc([Name](Peer &P) {
    baton_share S = joinOrExit(Name, BATON_SHARE_LATENCY_CRITICAL, "lc");
    uint64_t T = 0;
    baton_share_announce(S, &T);
    P.tell('a');
    // The main thread alone ends (pthread_exit would unwind into the
    // test's frames, which catch everything).
    syscall(SYS_exit, 0);
    return 0;
  });
  ASSERT_EQ(Lc.listen(), 'a');
  // Checked every 10 ms; a misjudged peer would be released at once.
  for (int I = 0; I < 30; ++I) {
    EXPECT_TRUE(Be.yields()) << "after " << I * 10 << " ms";
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(listOf(R.name()).at(1).alive, 1);
}

TEST(ShareProcesses, StaleSlotsAreReclaimedByTheNextJoin) {
  ScratchRegistry R;
  const char *Name = R.name();
  Peer Gone([Name](Peer &P) {
    joinOrExit(Name, BATON_SHARE_BEST_EFFORT, "gone"); // and never leaves
    return 0;
  });
  EXPECT_EQ(Gone.reap(), 0);
  auto List = listOf(R.name());
  ASSERT_EQ(List.size(), 1u);
  EXPECT_STREQ(List[0].name, "gone");
  EXPECT_EQ(List[0].alive, 0); // listing changes nothing
  EXPECT_EQ(List[0].dead, 1);
  BeMember Be(R.name());
  List = listOf(R.name());
  ASSERT_EQ(List.size(), 1u);
  EXPECT_STREQ(List[0].name, "be");
  EXPECT_EQ(List[0].slot, 0u); // the dead peer's slot, reused
}

TEST(ShareProcesses, SilentPeerStopsCountingAndComesBack) {
  ScratchRegistry R;
  BeMember Be(R.name());
  // A lease longer than the test, so that the work is still outstanding
  // when the peer runs again.
  Peer Lc(announceAndHang(R.name(), 60000));
  ASSERT_EQ(Lc.listen(), 'a');
  EXPECT_TRUE(Be.yields());
  kill(Lc.pid(), SIGSTOP); // alive, but its heartbeat stops
  // Released once the heartbeat is older than SilentAfter (1 s).
  auto Took = waitFor([&] { return !Be.yields(); }, 3s);
  EXPECT_GE(Took, 800ms);
  EXPECT_LT(Took, 1500ms);
  auto List = listOf(R.name());
  ASSERT_EQ(List.size(), 2u); // alive: not reclaimed
  EXPECT_EQ(List[1].alive, 0);
  EXPECT_EQ(List[1].dead, 0); // silent
  kill(Lc.pid(), SIGCONT); // beats again within a heartbeat period
  EXPECT_LT(waitFor([&] { return Be.yields(); }, 2s), 500ms);
  EXPECT_EQ(listOf(R.name()).at(1).alive, 1);
}

} // namespace
