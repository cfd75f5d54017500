//===- Slots.cpp - Claiming, reading and reclaiming slots -----------------===//
//
// The orderings, and why each is enough (see the protocol in Slots.h):
//
//  * Claim: a compare-exchange of Owner (free -> generation+1 | pid) makes
//    one process the owner. A release fence follows it and comes before the
//    owner's field stores, and readers put an acquire fence between their
//    field loads and their second load of Owner: a reader that loaded any
//    store of the new owner then sees the new Owner and discards its copy
//    (the writer and reader sides of a sequence lock; Boehm, "Can seqlocks
//    get along with programming language memory models?", MSPC 2012).
//  * Publish: Ready is stored with release after the fields; a reader that
//    loads it with acquire and finds the Owner's generation sees them all.
//  * Release and reclaim: a compare-exchange of the exact Owner word that
//    was read, so of two processes reclaiming the same dead slot, or a
//    reclaimer racing the owner's leave, only one frees it.
//
//===----------------------------------------------------------------------===//

#include "Slots.h"

#include "Error.h"

#include <cstring>

using namespace baton::share;

namespace {

constexpr std::memory_order Relaxed = std::memory_order_relaxed;

uint64_t nsOf(std::chrono::nanoseconds D) { return uint64_t(D.count()); }

void storeName(Slot &S, const std::string &Name) {
  char Bytes[BATON_SHARE_NAME_SIZE] = {};
  std::memcpy(Bytes, Name.data(),
              std::min(Name.size(), size_t(BATON_SHARE_NAME_SIZE - 1)));
  for (size_t I = 0; I < NameWords; ++I) {
    uint64_t Word;
    std::memcpy(&Word, Bytes + 8 * I, 8);
    field(S.Name[I]).store(Word, Relaxed);
  }
}

void loadName(const Slot &S, char (&Bytes)[BATON_SHARE_NAME_SIZE]) {
  for (size_t I = 0; I < NameWords; ++I) {
    uint64_t Word = field(S.Name[I]).load(Relaxed);
    std::memcpy(Bytes + 8 * I, &Word, 8);
  }
  Bytes[BATON_SHARE_NAME_SIZE - 1] = 0;
}

/// Writes \p Claim into \p S, claimed as \p Owner, and publishes it.
void publish(Slot &S, uint64_t Owner, const SlotClaim &Claim, uint64_t Now) {
  std::atomic_thread_fence(std::memory_order_release);
  field(S.Class).store(uint32_t(Claim.Class), Relaxed);
  field(S.PidNamespace).store(Claim.Id.PidNamespace, Relaxed);
  field(S.StartTime).store(Claim.Id.StartTime, Relaxed);
  field(S.HeartbeatNs).store(Now, Relaxed);
  field(S.JoinedNs).store(Now, Relaxed);
  storeName(S, Claim.Name);
  field(S.LeaseMs).store(Claim.LeaseMs, Relaxed);
  for (uint32_t *Word : {&S.Flags, &S.LanesUsed})
    field(*Word).store(0, Relaxed);
  for (uint64_t *Count : {&S.Announced, &S.Finished, &S.Expired, &S.Launches,
                          &S.Pauses, &S.Resumes})
    field(*Count).store(0, Relaxed);
  // A dead owner's lanes may hold any sequences; the GPU no longer writes
  // them (its context died with it).
  for (Lane &L : S.Lanes)
    for (uint32_t *Word : {&L.Issued, &L.Done, &L.State})
      field(*Word).store(0, Relaxed);
  field(S.Ready).store(generationOf(Owner), std::memory_order_release);
}

/// Raises Header::SlotsUsed to at least \p Used. Release: a reader that
/// loads it with acquire and scans up to it sees the published slot (the
/// slot's own Ready check would catch a stale view anyway).
void raiseSlotsUsed(Registry &R, uint32_t Used) {
  auto Field = field(R.Head.SlotsUsed);
  uint32_t Seen = Field.load(Relaxed);
  while (Seen < Used &&
         !Field.compare_exchange_weak(Seen, Used, std::memory_order_release,
                                      Relaxed)) {
  }
}

} // namespace

bool SlotView::beating(uint64_t Now) const {
  return Now < HeartbeatNs + nsOf(SilentAfter);
}

std::optional<SlotView> baton::share::readSlot(const Registry &R,
                                               uint32_t Index) {
  const Slot &S = R.Slots[Index];
  uint64_t Owner = field(S.Owner).load(std::memory_order_acquire);
  if (pidOf(Owner) == 0 ||
      field(S.Ready).load(std::memory_order_acquire) != generationOf(Owner))
    return std::nullopt;
  SlotView V;
  V.Index = Index;
  V.Owner = Owner;
  V.Id.Pid = pidOf(Owner);
  V.Id.PidNamespace = field(S.PidNamespace).load(Relaxed);
  V.Id.StartTime = field(S.StartTime).load(Relaxed);
  V.Class = baton_share_class(field(S.Class).load(Relaxed));
  V.HeartbeatNs = field(S.HeartbeatNs).load(Relaxed);
  V.JoinedNs = field(S.JoinedNs).load(Relaxed);
  loadName(S, V.Name);
  V.LeaseMs = field(S.LeaseMs).load(Relaxed);
  V.Flags = field(S.Flags).load(Relaxed);
  // Finished first, with acquire. The owner counts a piece of work in
  // Announced, or in a lane's Issued, before it counts it in Finished with
  // release (Member.cpp), so whatever Finished includes is already in the
  // values loaded after it: a concurrent announce or hand-over can only make
  // the sum below too large for an instant, never too small.
  V.Finished = field(S.Finished).load(std::memory_order_acquire);
  V.Announced = field(S.Announced).load(Relaxed);
  V.Expired = field(S.Expired).load(Relaxed);
  V.Launches = field(S.Launches).load(Relaxed);
  V.Pauses = field(S.Pauses).load(Relaxed);
  V.Resumes = field(S.Resumes).load(Relaxed);
  uint32_t Lanes = std::min(field(S.LanesUsed).load(Relaxed), LaneCount);
  for (uint32_t I = 0; I < Lanes; ++I) {
    const Lane &L = S.Lanes[I];
    if (field(L.State).load(Relaxed) == LaneRetired)
      continue;
    // Done is written by the GPU (StreamEnd.cpp); Issued is stored before
    // the write is queued, so Done never passes it, and the difference is
    // what the stream has not reached yet (mod 2^32).
    uint32_t Ahead = field(L.Issued).load(Relaxed) - field(L.Done).load(Relaxed);
    if (Ahead < (1u << 31))
      V.OnStreams += Ahead;
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  if (field(S.Owner).load(Relaxed) != Owner)
    return std::nullopt;
  return V;
}

bool baton::share::reclaimable(const SlotView &V, uint64_t Now) {
  switch (liveness(V.Id)) {
  case Liveness::Alive:
    return false;
  case Liveness::Dead:
    return true;
  case Liveness::Unknown:
    return Now >= V.HeartbeatNs + nsOf(ReclaimSilentAfter);
  }
  return false;
}

bool baton::share::releaseSlot(Registry &R, uint32_t Index, uint64_t Owner) {
  uint64_t Expected = Owner;
  return field(R.Slots[Index].Owner)
      .compare_exchange_strong(Expected, ownerWord(generationOf(Owner), 0),
                               std::memory_order_acq_rel, Relaxed);
}

uint32_t baton::share::claimSlot(Registry &R, const SlotClaim &Claim,
                                 uint64_t *Owner,
                                 const std::string &RegistryName) {
  uint64_t Now = nowNs();
  uint32_t Used =
      std::min(field(R.Head.SlotsUsed).load(std::memory_order_acquire),
               SlotCount);
  for (uint32_t I = 0; I < Used; ++I)
    if (std::optional<SlotView> V = readSlot(R, I); V && reclaimable(*V, Now))
      releaseSlot(R, I, V->Owner);
  for (uint32_t I = 0; I < SlotCount; ++I) {
    auto Word = field(R.Slots[I].Owner);
    uint64_t Seen = Word.load(Relaxed);
    if (pidOf(Seen) != 0)
      continue;
    uint32_t Generation = generationOf(Seen) + 1;
    if (Generation == 0) // 0 is the generation of a never-claimed slot
      Generation = 1;
    uint64_t Mine = ownerWord(Generation, Claim.Id.Pid);
    if (!Word.compare_exchange_strong(Seen, Mine, std::memory_order_acq_rel,
                                      Relaxed))
      continue;
    publish(R.Slots[I], Mine, Claim, Now);
    raiseSlotsUsed(R, I + 1);
    *Owner = Mine;
    return I;
  }
  throw Failure(BATON_SHARE_ERROR_FULL,
                "all " + std::to_string(SlotCount) + " slots of registry " +
                    RegistryName +
                    " are held by live processes (batonctl lists them)");
}
