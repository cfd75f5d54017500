//===- CApi.cpp - baton/share.h over Member and the registry --------------===//
//
// Every entry point catches everything: a C caller (the preload library, a
// Python binding) gets a status and a message, never an exception.
//
//===----------------------------------------------------------------------===//

#include "baton/share.h"

#include "Error.h"
#include "Member.h"
#include "Segment.h"
#include "Slots.h"

#include "baton/Runtime.h"

#include <cstring>
#include <string>

using namespace baton::share;

namespace {

thread_local std::string LastError;

baton_share_status fail(baton_share_status Status, const std::string &Why) {
  LastError = Why;
  return Status;
}

/// Runs \p Body, turning what it throws into a status.
template <class F> baton_share_status guarded(F &&Body) {
  try {
    Body();
    LastError.clear();
    return BATON_SHARE_OK;
  } catch (const Failure &E) {
    return fail(E.status(), E.what());
  } catch (const baton::Error &E) { // from the CUDA driver table
    return fail(BATON_SHARE_ERROR_CUDA, E.what());
  } catch (const std::exception &E) {
    return fail(BATON_SHARE_ERROR_SYSTEM, E.what());
  }
}

/// The member behind \p Share, in the process that joined.
Member &member(baton_share Share) {
  if (!Share)
    throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT, "null baton_share");
  auto &M = *reinterpret_cast<Member *>(Share);
  if (!M.ownedByThisProcess())
    throw Failure(BATON_SHARE_ERROR_FORKED,
                  "this baton_share was joined by the parent of this forked "
                  "process; join again in the child");
  return M;
}

std::string registryOf(const char *Registry, int Device) {
  if (Registry)
    return Registry;
  if (Device < 0)
    throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT,
                  "device " + std::to_string(Device) + " is not an ordinal");
  return defaultRegistryName(Device);
}

uint64_t microsBetween(uint64_t FromNs, uint64_t ToNs) {
  return ToNs > FromNs ? (ToNs - FromNs) / 1000 : 0;
}

baton_share_process describe(const SlotView &V, uint64_t Now) {
  baton_share_process P{};
  P.slot = V.Index;
  P.pid = int32_t(V.Id.Pid);
  P.cls = V.Class;
  P.dead = liveness(V.Id) == Liveness::Dead;
  P.alive = V.beating(Now) && !P.dead;
  std::memcpy(P.name, V.Name, sizeof(P.name));
  P.heartbeat_age_us = microsBetween(V.HeartbeatNs, Now);
  P.joined_age_us = microsBetween(V.JoinedNs, Now);
  P.lc_announced = V.Announced;
  P.lc_outstanding = V.lcOutstanding();
  P.lc_expired = V.Expired;
  uint64_t Over = P.lc_outstanding + P.lc_expired;
  P.lc_ended = V.Announced > Over ? V.Announced - Over : 0;
  P.lease_ms = V.LeaseMs;
  P.end_path = V.Flags & FlagGpuWrite    ? BATON_SHARE_END_GPU_WRITE
               : V.Flags & FlagEventPoll ? BATON_SHARE_END_EVENT_POLL
                                         : BATON_SHARE_END_UNUSED;
  P.be_launches = V.Launches;
  P.be_pauses = V.Pauses;
  P.be_resumes = V.Resumes;
  P.be_paused = (V.Flags & FlagYielding) != 0;
  return P;
}

} // namespace

extern "C" {

const char *baton_share_last_error(void) { return LastError.c_str(); }

baton_share_status baton_share_default_registry(int Device, char *Buf,
                                                size_t Size) {
  return guarded([&] {
    std::string Name = registryOf(nullptr, Device);
    if (!Buf || Size <= Name.size())
      throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT,
                    "buffer too small for '" + Name + "'");
    std::memcpy(Buf, Name.c_str(), Name.size() + 1);
  });
}

baton_share_status baton_share_join(const char *Registry, int Device,
                                    baton_share_class Class, const char *Name,
                                    baton_share *Out) {
  return guarded([&] {
    if (!Out)
      throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT, "null out pointer");
    *Out = nullptr;
    auto *M = new Member(registryOf(Registry, Device), Class, Name ? Name : "");
    *Out = reinterpret_cast<baton_share>(M);
  });
}

void baton_share_leave(baton_share Share) {
  if (!Share)
    return;
  auto *M = reinterpret_cast<Member *>(Share);
  // In a forked child the keeper thread does not exist and the slot is the
  // parent's: the copy is left alone.
  if (M->ownedByThisProcess())
    delete M;
}

baton_share_status baton_share_announce(baton_share Share, uint64_t *Ticket) {
  return guarded([&] {
    if (!Ticket)
      throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT, "null ticket pointer");
    *Ticket = member(Share).announce();
  });
}

baton_share_status baton_share_end(baton_share Share, uint64_t Ticket) {
  return guarded([&] { member(Share).end(Ticket); });
}

baton_share_status baton_share_end_on_stream(baton_share Share,
                                             uint64_t Ticket, void *Stream) {
  return guarded([&] {
    member(Share).endOnStream(Ticket, static_cast<CUstream>(Stream));
  });
}

baton_share_status baton_share_set_lease(baton_share Share, unsigned Ms) {
  return guarded(
      [&] { member(Share).setLease(std::chrono::milliseconds(Ms)); });
}

int baton_share_should_yield(baton_share Share) {
  int Result = -1;
  guarded([&] { Result = member(Share).shouldYield() ? 1 : 0; });
  return Result;
}

baton_share_status baton_share_set_linger(baton_share Share, unsigned Us) {
  return guarded(
      [&] { member(Share).setLinger(std::chrono::microseconds(Us)); });
}

baton_share_status baton_share_count_launches(baton_share Share, uint64_t N) {
  return guarded([&] { member(Share).countLaunches(N); });
}

baton_share_status baton_share_lc_outstanding(baton_share Share,
                                              uint64_t *Outstanding) {
  return guarded([&] {
    if (!Outstanding)
      throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT, "null out pointer");
    *Outstanding = member(Share).lcOutstanding();
  });
}

baton_share_status baton_share_lc_peers(baton_share Share, uint32_t *Peers) {
  return guarded([&] {
    if (!Peers)
      throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT, "null out pointer");
    *Peers = member(Share).lcPeers();
  });
}

baton_share_status baton_share_list(const char *Name, int Device,
                                    baton_share_process *Out, size_t Capacity,
                                    size_t *Count) {
  return guarded([&] {
    if (!Count || (Capacity && !Out))
      throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT, "null out pointer");
    Segment Seg(registryOf(Name, Device), Segment::Access::Observe);
    const Registry &R = Seg.registry();
    uint64_t Now = nowNs();
    uint32_t Used = std::min(
        field(R.Head.SlotsUsed).load(std::memory_order_acquire), SlotCount);
    size_t N = 0;
    for (uint32_t I = 0; I < Used; ++I)
      if (std::optional<SlotView> V = readSlot(R, I)) {
        if (N < Capacity)
          Out[N] = describe(*V, Now);
        ++N;
      }
    *Count = N;
  });
}

} // extern "C"
