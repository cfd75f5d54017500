//===- Slots.h - Claiming, reading and reclaiming slots ---------*- C++ -*-===//
//
// A slot is owned by the process named in its Owner word, and published
// once its Ready word holds the Owner's generation. The owner writes its
// fields while other processes read them, and slots change hands (a process
// leaves, a dead one's slot is reclaimed, a new one claims it), so readers
// take a consistent copy with the protocol of a sequence lock, Owner being
// the sequence: read Owner, check Ready, copy the fields, read Owner again.
// A copy is discarded if Owner changed in between; only slot hand-overs
// change Owner, so a busy owner's counters never make a reader retry.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_SHARE_SLOTS_H
#define BATON_LIB_SHARE_SLOTS_H

#include "Layout.h"
#include "Process.h"

#include <optional>
#include <string>

namespace baton::share {

/// A consistent copy of one published slot.
struct SlotView {
  uint32_t Index = 0;
  uint64_t Owner = 0;
  ProcessId Id;
  baton_share_class Class = BATON_SHARE_BEST_EFFORT;
  uint64_t HeartbeatNs = 0, JoinedNs = 0;
  char Name[BATON_SHARE_NAME_SIZE] = {}; ///< no allocation on a hot path
  uint32_t LeaseMs = 0, Flags = 0;
  uint64_t Announced = 0, Finished = 0, Expired = 0;
  uint64_t Launches = 0, Pauses = 0, Resumes = 0;
  /// Sequences issued on streams and not reached yet, over lanes that are
  /// not retired.
  uint64_t OnStreams = 0;

  /// LC work announced and not yet over.
  uint64_t lcOutstanding() const {
    return (Announced > Finished ? Announced - Finished : 0) + OnStreams;
  }
  /// Its heartbeat is recent (see SilentAfter).
  bool beating(uint64_t Now) const;
};

/// The copy of slot \p Index, or nullopt if it is free, not yet published,
/// or changed hands while it was read.
std::optional<SlotView> readSlot(const Registry &R, uint32_t Index);

/// What a new owner writes into its slot before publishing it.
struct SlotClaim {
  ProcessId Id;
  baton_share_class Class = BATON_SHARE_BEST_EFFORT;
  std::string Name;
  uint32_t LeaseMs = 0;
};

/// Reclaims the slots of dead processes, then claims a free slot and
/// publishes \p Claim in it. Returns the slot's index; *Owner receives its
/// Owner word. Throws Failure(BATON_SHARE_ERROR_FULL) if every slot is held
/// by a live process.
uint32_t claimSlot(Registry &R, const SlotClaim &Claim, uint64_t *Owner,
                   const std::string &RegistryName);

/// Frees slot \p Index if its Owner word is still \p Owner. Returns whether
/// it did.
bool releaseSlot(Registry &R, uint32_t Index, uint64_t Owner);

/// Whether \p V's owner can no longer use its slot: its process is dead, or
/// it has been silent for ReclaimSilentAfter and its pid cannot be checked.
bool reclaimable(const SlotView &V, uint64_t Now);

} // namespace baton::share

#endif // BATON_LIB_SHARE_SLOTS_H
