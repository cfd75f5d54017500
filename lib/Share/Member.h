//===- Member.h - A process's membership of a registry ----------*- C++ -*-===//
//
// What a baton_share handle is: the slot this process claimed, the thread
// that keeps it (heartbeat, leases, event polling), the LC tickets not yet
// ended, and, for a process that reads its peers, what it last learnt about
// each of them.
//
// Counters in the slot are written only here (and in StreamEnd.cpp, under
// the same lock), by this process; peers read them (Slots.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_SHARE_MEMBER_H
#define BATON_LIB_SHARE_MEMBER_H

#include "Segment.h"
#include "Slots.h"
#include "StreamEnd.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>

namespace baton::share {

class Member {
public:
  /// Joins \p Registry (see baton_share_join). Throws Failure.
  Member(const std::string &Registry, baton_share_class Class,
         const std::string &Name);
  /// Leaves (see baton_share_leave). Only in the process that joined.
  ~Member();
  Member(const Member &) = delete;
  Member &operator=(const Member &) = delete;

  /// False in a child forked after the join: the handle is the parent's.
  bool ownedByThisProcess() const;

  // Latency-critical members; Failure(INVALID_ARGUMENT) for others.
  uint64_t announce();
  void end(uint64_t Ticket);
  void endOnStream(uint64_t Ticket, CUstream Stream);
  void setLease(std::chrono::milliseconds Lease);

  // Best-effort members; Failure(INVALID_ARGUMENT) for others.
  bool shouldYield();
  void countLaunches(uint64_t N);
  /// shouldYield() keeps answering yes for \p Linger after peers' LC work
  /// ends (see baton_share_set_linger).
  void setLinger(std::chrono::microseconds Linger);

  /// LC work outstanding in live members. Reclaims the slots of dead ones.
  uint64_t lcOutstanding();
  /// Latency-critical members of other processes whose heartbeat is
  /// recent, whether or not they have work outstanding.
  uint32_t lcPeers();

private:
  struct Ticket {
    uint64_t AnnouncedNs;
    bool OnEvent; ///< its end is an event the keeper polls
  };
  /// What this process last found out about the owner of a slot.
  struct PeerCheck {
    uint64_t Owner = 0;
    uint64_t CheckedNs = 0;
    bool Dead = false;
  };

  void requireClass(baton_share_class Wanted, const char *Call) const;
  void requireSlot() const;
  void finish(uint64_t Count); ///< with Mutex held
  /// Ticket \p T, outstanding and not yet ending on a stream (with Mutex
  /// held); throws UNKNOWN_TICKET otherwise.
  std::unordered_map<uint64_t, Ticket>::iterator endableTicket(uint64_t T);
  void keep();                 ///< the keeper thread
  void expire(uint64_t Now);   ///< with Mutex held
  void beat(uint64_t Now);
  void setYielding(bool Yield); ///< with PeersMutex held
  void forgetStaleYield(uint64_t Now);

  Segment Seg;
  baton_share_class Class;
  uint32_t Index = 0;
  uint64_t Owner = 0;
  ProcessId Self; ///< the process that joined
  uint64_t ForkGeneration;
  Slot &mine() const { return Seg.registry().Slots[Index]; }

  mutable std::mutex Mutex; ///< guards everything below, and Ends
  std::condition_variable Wake;
  std::condition_variable KeeperStarted;
  bool KeeperRunning = false;
  bool Stopping = false;
  std::atomic<bool> Lost{false}; ///< another process reclaimed the slot
  bool ExpiryReported = false;
  uint64_t LeaseNs;
  uint64_t NextTicket = 1;
  std::unordered_map<uint64_t, Ticket> Tickets;
  std::optional<StreamEnds> Ends; ///< LC members only
  std::thread Keeper;

  std::mutex PeersMutex; ///< guards Peers and the fields below
  PeerCheck Peers[SlotCount];
  bool Yielding = false;
  uint64_t AskedNs = 0; ///< when shouldYield() was last called
  uint64_t BusyNs = 0;  ///< when shouldYield() last saw LC work outstanding
  uint64_t LingerNs = 0;
};

} // namespace baton::share

#endif // BATON_LIB_SHARE_MEMBER_H
