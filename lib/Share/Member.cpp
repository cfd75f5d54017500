//===- Member.cpp - A process's membership of a registry ------------------===//
//
// Counters, and why their orderings are enough. Announced, Expired,
// Launches, Pauses and Resumes are read by peers for their values only, so
// relaxed increments do. Finished is incremented with release: a reader
// loads it with acquire before Announced and the lanes, so it sees every
// announce and every lane sequence that the ends it counts came from
// (Slots.cpp), and the sum it computes is never too small.
//
//===----------------------------------------------------------------------===//

#include "Member.h"

#include "Error.h"
#include "Lease.h"

#include "baton/Capture.h"

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace baton::share;

namespace {

constexpr std::memory_order Relaxed = std::memory_order_relaxed;

/// How often the keeper queries the events of ends on streams that the GPU
/// cannot write (StreamEnd.h): short, since a peer's BE work waits on it.
constexpr std::chrono::microseconds EventPollPeriod{20};

std::atomic<uint64_t> ForkCount{0};

/// Bumped in every child after fork(): a handle made before belongs to the
/// parent.
uint64_t forkGeneration() {
  static std::once_flag Registered;
  std::call_once(Registered, [] {
    pthread_atfork(nullptr, nullptr, [] { ForkCount.fetch_add(1, Relaxed); });
  });
  return ForkCount.load(Relaxed);
}

uint64_t nsOf(std::chrono::nanoseconds D) { return uint64_t(D.count()); }

/// A thread that never runs the program's signal handlers.
std::thread startQuiet(void (Member::*Body)(), Member *M) {
  sigset_t All, Old;
  sigfillset(&All);
  pthread_sigmask(SIG_SETMASK, &All, &Old);
  struct Restore {
    sigset_t *Old;
    ~Restore() { pthread_sigmask(SIG_SETMASK, Old, nullptr); }
  } R{&Old};
  return std::thread(Body, M);
}

} // namespace

Member::Member(const std::string &Registry, baton_share_class C,
               const std::string &Name)
    : Seg(Registry, Segment::Access::Join), Class(C),
      ForkGeneration(forkGeneration()),
      LeaseNs(nsOf(leaseFromEnvironment())) {
  if (C != BATON_SHARE_BEST_EFFORT && C != BATON_SHARE_LATENCY_CRITICAL)
    throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT,
                  "class " + std::to_string(int(C)) +
                      " is neither best-effort nor latency-critical");
  Self = thisProcess();
  SlotClaim Claim{Self, C, Name.empty() ? programName() : Name,
                  uint32_t(LeaseNs / 1000000)};
  Index = claimSlot(Seg.registry(), Claim, &Owner, Seg.name());
  if (C == BATON_SHARE_LATENCY_CRITICAL)
    Ends.emplace(mine(), Seg.registry());
  try {
    Keeper = startQuiet(&Member::keep, this);
  } catch (const std::system_error &E) {
    releaseSlot(Seg.registry(), Index, Owner);
    throw Failure(BATON_SHARE_ERROR_SYSTEM,
                  std::string("cannot start the heartbeat thread: ") +
                      E.what());
  }
  // A thread still starting may hold an allocator's lock (the sanitizers'
  // allocators take no fork handlers); a fork() right after the join would
  // leave that lock held in the child forever.
  std::unique_lock Lock(Mutex);
  KeeperStarted.wait(Lock, [this] { return KeeperRunning; });
}

Member::~Member() {
  {
    std::lock_guard Lock(Mutex);
    Stopping = true;
  }
  Wake.notify_all();
  Keeper.join();
  // Work still announced is over as far as peers are concerned.
  if (!Lost)
    finish(Tickets.size());
  if (Ends && !Ends->drain(nowNs() + LeaseNs)) {
    // The GPU will still write the lanes: the memory must stay mapped and
    // pinned, and the slot ours (a new owner's lanes must not receive our
    // writes), until the process exits and its context with it.
    Seg.leak();
    if (!Lost)
      std::fprintf(stderr,
                   "baton: share: leaving with %llu ends still queued on "
                   "streams; the slot is kept until this process exits\n",
                   static_cast<unsigned long long>(Ends->retireAll()));
    return;
  }
  if (Ends)
    Ends->unmap();
  if (!Lost)
    releaseSlot(Seg.registry(), Index, Owner);
}

bool Member::ownedByThisProcess() const {
  return ForkCount.load(Relaxed) == ForkGeneration;
}

void Member::requireClass(baton_share_class Wanted, const char *Call) const {
  if (Class != Wanted)
    throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT,
                  std::string(Call) + " is for " +
                      (Wanted == BATON_SHARE_LATENCY_CRITICAL
                           ? "latency-critical"
                           : "best-effort") +
                      " members; this process joined as the other class");
}

void Member::requireSlot() const {
  if (Lost)
    throw Failure(BATON_SHARE_ERROR_SYSTEM,
                  "this process's slot in " + Seg.name() +
                      " was reclaimed after it was silent for " +
                      std::to_string(ReclaimSilentAfter.count()) +
                      " s; join again");
}

void Member::finish(uint64_t Count) {
  if (Count)
    field(mine().Finished).fetch_add(Count, std::memory_order_release);
}

uint64_t Member::announce() {
  requireClass(BATON_SHARE_LATENCY_CRITICAL, "baton_share_announce");
  std::lock_guard Lock(Mutex);
  requireSlot();
  uint64_t T = NextTicket++;
  Tickets.emplace(T, Ticket{nowNs(), false});
  field(mine().Announced).fetch_add(1, Relaxed);
  return T;
}

namespace {
[[noreturn]] void throwNotOutstanding(uint64_t T, const char *Why) {
  throw Failure(BATON_SHARE_ERROR_UNKNOWN_TICKET,
                "ticket " + std::to_string(T) + " is not outstanding: " + Why);
}
} // namespace

std::unordered_map<uint64_t, Member::Ticket>::iterator
Member::endableTicket(uint64_t T) {
  auto It = Tickets.find(T);
  if (It == Tickets.end())
    throwNotOutstanding(T, "never announced, ended already, or expired "
                           "after the lease");
  if (It->second.OnEvent)
    throwNotOutstanding(T, "it ends on a stream already");
  return It;
}

void Member::end(uint64_t T) {
  requireClass(BATON_SHARE_LATENCY_CRITICAL, "baton_share_end");
  std::lock_guard Lock(Mutex);
  requireSlot();
  auto It = endableTicket(T);
  Tickets.erase(It);
  finish(1);
}

void Member::endOnStream(uint64_t T, CUstream Stream) {
  requireClass(BATON_SHARE_LATENCY_CRITICAL, "baton_share_end_on_stream");
  std::lock_guard Lock(Mutex);
  requireSlot();
  auto It = endableTicket(T);
  bool Polling = Ends->eventsPending();
  if (Ends->queue(Stream, T, nowNs()) == StreamEnds::Path::GpuWrite) {
    Tickets.erase(It); // its lane counts it now
    finish(1);
    return;
  }
  It->second.OnEvent = true;
  // The keeper polls from now on; one that polls already needs no wake-up
  // (a futex call on every launch of an LC process otherwise).
  if (!Polling)
    Wake.notify_all();
}

void Member::setLease(std::chrono::milliseconds Lease) {
  requireClass(BATON_SHARE_LATENCY_CRITICAL, "baton_share_set_lease");
  std::lock_guard Lock(Mutex);
  LeaseNs = nsOf(Lease.count() > 0 ? Lease : leaseFromEnvironment());
  field(mine().LeaseMs).store(uint32_t(LeaseNs / 1000000), Relaxed);
}

void Member::expire(uint64_t Now) {
  uint64_t Released = 0;
  for (auto It = Tickets.begin(); It != Tickets.end();) {
    if (Now - It->second.AnnouncedNs <= LeaseNs) {
      ++It;
      continue;
    }
    if (It->second.OnEvent)
      Ends->forgetEvent(It->first);
    It = Tickets.erase(It);
    ++Released;
  }
  field(mine().Expired).fetch_add(Released, Relaxed);
  finish(Released);
  Released += Ends->expireLanes(Now, LeaseNs);
  if (Released && !ExpiryReported) {
    ExpiryReported = true;
    std::fprintf(stderr,
                 "baton: share: %llu piece(s) of latency-critical work made "
                 "no progress for %llu ms (the lease) and no longer hold "
                 "best-effort work back; later expiries are only counted "
                 "(batonctl shows them)\n",
                 static_cast<unsigned long long>(Released),
                 static_cast<unsigned long long>(LeaseNs / 1000000));
  }
}

void Member::beat(uint64_t Now) {
  if (Lost)
    return;
  if (field(mine().Owner).load(Relaxed) != Owner) {
    Lost = true;
    std::fprintf(stderr, "baton: share: %s\n",
                 ("this process's slot in " + Seg.name() +
                  " was reclaimed by another process; it no longer takes "
                  "part in sharing (join again)")
                     .c_str());
    return;
  }
  // Relaxed: peers read the heartbeat for its value only.
  field(mine().HeartbeatNs).store(Now, Relaxed);
}

void Member::keep() {
  pthread_setname_np(pthread_self(), "baton-share");
  // Linux rounds sleeps up by the timer slack (50 us by default), which
  // would make the event poll four times slower than asked.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  // Its event queries (LC ends on streams) must not break a graph capture
  // of another thread.
  if (Class == BATON_SHARE_LATENCY_CRITICAL)
    baton::relaxCaptureModeForThisThread();
  std::unique_lock Lock(Mutex);
  KeeperRunning = true;
  KeeperStarted.notify_all();
  uint64_t NextBeat = 0;
  while (!Stopping) {
    uint64_t Now = nowNs();
    try {
      if (Now >= NextBeat) {
        beat(Now);
        if (Ends && !Lost)
          expire(Now);
        if (Class == BATON_SHARE_BEST_EFFORT)
          forgetStaleYield(Now);
        NextBeat = Now + nsOf(HeartbeatPeriod);
      }
      if (Ends && Ends->eventsPending())
        for (uint64_t T : Ends->pollEvents())
          if (Tickets.erase(T))
            finish(1);
    } catch (const std::exception &E) {
      std::fprintf(stderr, "baton: share: %s\n", E.what());
    }
    if (Ends && Ends->eventsPending())
      Wake.wait_for(Lock, EventPollPeriod);
    else
      Wake.wait_for(Lock, std::chrono::nanoseconds(NextBeat - Now));
  }
}

bool Member::shouldYield() {
  requireClass(BATON_SHARE_BEST_EFFORT, "baton_share_should_yield");
  bool Outstanding = lcOutstanding() != 0;
  std::lock_guard Lock(PeersMutex);
  uint64_t Now = nowNs();
  AskedNs = Now;
  if (Outstanding)
    BusyNs = Now;
  // An LC request is a burst of kernels with host gaps between them; a BE
  // process that resumed in every gap would pay a pause and a resume per
  // kernel, and put its blocks back in the LC kernels' way.
  bool Busy = Outstanding || (Yielding && Now - BusyNs < LingerNs);
  setYielding(Busy);
  return Busy;
}

void Member::setLinger(std::chrono::microseconds Linger) {
  requireClass(BATON_SHARE_BEST_EFFORT, "baton_share_set_linger");
  std::lock_guard Lock(PeersMutex);
  LingerNs = Linger.count() > 0 ? nsOf(Linger) : 0;
}

void Member::setYielding(bool Yield) {
  if (Yield != Yielding && !Lost) {
    Slot &S = mine();
    field(Yield ? S.Pauses : S.Resumes).fetch_add(1, Relaxed);
    if (Yield)
      field(S.Flags).fetch_or(FlagYielding, Relaxed);
    else
      field(S.Flags).fetch_and(~uint32_t(FlagYielding), Relaxed);
  }
  Yielding = Yield;
}

/// A scheduler asks while it has work to hold back (SchedulerService asks
/// on every poll while it has work); one that has not asked for SilentAfter
/// holds nothing back, whatever it was told last.
void Member::forgetStaleYield(uint64_t Now) {
  std::lock_guard Lock(PeersMutex);
  if (Yielding && Now > AskedNs + nsOf(SilentAfter))
    setYielding(false);
}

void Member::countLaunches(uint64_t N) {
  requireClass(BATON_SHARE_BEST_EFFORT, "baton_share_count_launches");
  if (!Lost)
    field(mine().Launches).fetch_add(N, Relaxed);
}

/// Calls \p Visit with a consistent copy of each published latency-critical
/// slot of \p R.
template <class F> static void forEachLcSlot(const Registry &R, F Visit) {
  uint32_t Used = std::min(
      field(R.Head.SlotsUsed).load(std::memory_order_acquire), SlotCount);
  for (uint32_t I = 0; I < Used; ++I) {
    // A cheap look first: most slots are best-effort processes. A slot
    // that is changing class is read in full at the next call.
    if (field(R.Slots[I].Class).load(Relaxed) != BATON_SHARE_LATENCY_CRITICAL)
      continue;
    std::optional<SlotView> V = readSlot(R, I);
    if (V && V->Class == BATON_SHARE_LATENCY_CRITICAL)
      Visit(*V);
  }
}

uint32_t Member::lcPeers() {
  uint64_t Now = nowNs();
  uint32_t Peers = 0;
  forEachLcSlot(Seg.registry(), [&](const SlotView &V) {
    bool Ours = V.Id.Pid == Self.Pid && V.Id.PidNamespace == Self.PidNamespace;
    if (!Ours && V.beating(Now))
      ++Peers;
  });
  return Peers;
}

uint64_t Member::lcOutstanding() {
  std::lock_guard Lock(PeersMutex);
  Registry &R = Seg.registry();
  uint64_t Now = nowNs();
  uint64_t Sum = 0;
  forEachLcSlot(R, [&](const SlotView &V) {
    uint64_t Outstanding = V.lcOutstanding();
    if (!Outstanding)
      return;
    // Only a peer that keeps us waiting is checked, and at most every
    // PidCheckPeriod: the check reads /proc.
    PeerCheck &P = Peers[V.Index];
    if (P.Owner != V.Owner || Now >= P.CheckedNs + nsOf(PidCheckPeriod)) {
      P = {V.Owner, Now, reclaimable(V, Now)};
      if (P.Dead)
        releaseSlot(R, V.Index, V.Owner);
    }
    if (!P.Dead && V.beating(Now))
      Sum += Outstanding;
  });
  return Sum;
}

std::chrono::milliseconds baton::share::leaseFromEnvironment() {
  const char *V = std::getenv("BATON_SHARE_LEASE_MS");
  if (!V || !*V)
    return DefaultLease;
  char *End = nullptr;
  unsigned long long Ms = std::strtoull(V, &End, 10);
  if (*End || Ms == 0 || Ms > 3600 * 1000) {
    std::fprintf(stderr,
                 "baton: share: BATON_SHARE_LEASE_MS='%s' is not a number of "
                 "milliseconds in [1, 3600000]; using %lld\n",
                 V, static_cast<long long>(DefaultLease.count()));
    return DefaultLease;
  }
  return std::chrono::milliseconds(Ms);
}
