//===- Layout.h - The registry's shared-memory layout -----------*- C++ -*-===//
//
// What the processes sharing a GPU read and write in the registry segment.
// Every process maps the same bytes, so this file is the contract between
// them: a change of any field, size or meaning bumps Version, and a process
// that finds another version refuses to join (Segment.cpp). The first 16
// bytes (Magic, Version, Bytes) never move, so that any two versions can
// tell each other apart.
//
// Every field is a plain integer of a standard-layout struct (the layout is
// fixed and readable in a debugger or from another language), and is only
// ever accessed through std::atomic_ref (field() below): several processes
// read and write it at the same time. The orderings used, and why each is
// enough, are explained where a field is written: Slots.cpp (claiming and
// reading slots), Member.cpp (counters), StreamEnd.cpp (lanes, which the
// GPU writes).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_SHARE_LAYOUT_H
#define BATON_LIB_SHARE_LAYOUT_H

#include "baton/share.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace baton::share {

inline constexpr uint64_t Magic = 0x5248534e4f544142; // "BATONSHR"
inline constexpr uint32_t Version = 1;
inline constexpr uint32_t SlotCount = BATON_SHARE_MAX_PROCESSES;
/// Streams with GPU-ended LC work at once, per process (more fall back to
/// the event poll).
inline constexpr uint32_t LaneCount = 16;
inline constexpr size_t NameWords = BATON_SHARE_NAME_SIZE / 8;

// Timing that every process relies on: part of the protocol as much as the
// fields are.
/// How often each joined process writes its heartbeat.
inline constexpr std::chrono::milliseconds HeartbeatPeriod{100};
/// A process whose heartbeat is older counts for nothing: ten missed beats,
/// which a loaded machine does not cause (it delays a sleeping thread by
/// milliseconds) but a stopped, hung or vanished process does.
inline constexpr std::chrono::milliseconds SilentAfter{1000};
/// The slot of a silent process whose pid cannot be checked (it runs in
/// another pid namespace) is reclaimed after this long.
inline constexpr std::chrono::seconds ReclaimSilentAfter{10};
/// How often a BE process checks that a peer keeping it paused still lives.
inline constexpr std::chrono::milliseconds PidCheckPeriod{10};
/// Lease of LC work that makes no progress; see docs/sharing.md for the
/// choice.
inline constexpr std::chrono::milliseconds DefaultLease{1000};

struct Header {
  uint64_t Magic;     ///< written last, with release, once initialised
  uint32_t Version;
  uint32_t Bytes;     ///< size of the whole segment
  uint32_t Slots;     ///< SlotCount of the creator
  uint32_t SlotsUsed; ///< one past the highest slot ever claimed
  uint32_t Reserved0;
  uint32_t Reserved1;
  uint64_t CreatedNs; ///< CLOCK_MONOTONIC
  uint64_t Reserved[3];
};

/// Where one stream's GPU-ended work stands. Issued and Done are sequence
/// numbers (mod 2^32): the stream has work outstanding while Done != Issued.
struct Lane {
  uint32_t Issued; ///< host: the last sequence queued on the stream
  uint32_t Done;   ///< device (cuStreamWriteValue32): the last one reached
  uint32_t State;  ///< LaneState
  uint32_t Reserved;
};

enum LaneState : uint32_t {
  LaneFree = 0,    ///< Done == Issued; may be bound to any stream
  LaneBound = 1,   ///< bound to a stream of its process
  LaneRetired = 2, ///< made no progress for the lease: not counted
};

enum SlotFlag : uint32_t {
  FlagGpuWrite = 1,  ///< end_on_stream: the stream writes the lanes
  FlagEventPoll = 2, ///< end_on_stream: a host thread polls events
  FlagYielding = 4,  ///< BE: yielding to LC work now
};

struct alignas(64) Slot {
  /// Generation << 32 | pid; pid 0: free. Every claim and release changes
  /// it, so a reader that sees the same value before and after reading the
  /// fields below read one process's fields (Slots.cpp).
  uint64_t Owner;
  uint32_t Ready; ///< generation whose fields below are published
  uint32_t Class; ///< baton_share_class
  uint64_t PidNamespace; ///< inode of the owner's /proc/self/ns/pid
  uint64_t StartTime;    ///< the owner's start time, in clock ticks after boot
  uint64_t HeartbeatNs;  ///< CLOCK_MONOTONIC of the last heartbeat
  uint64_t JoinedNs;
  uint64_t Name[NameWords]; ///< NUL-padded bytes, in words for atomic_ref
  uint32_t LeaseMs;
  uint32_t Flags; ///< SlotFlag
  // Latency-critical counters, written by the owner.
  uint64_t Announced; ///< work announced
  uint64_t Finished;  ///< ended by the host, handed to a lane, or expired
  uint64_t Expired;   ///< released by the lease (host tickets and lanes)
  // Best-effort counters, written by the owner.
  uint64_t Launches;
  uint64_t Pauses;
  uint64_t Resumes;
  uint32_t LanesUsed; ///< one past the highest lane ever bound
  uint32_t Reserved0;
  uint64_t Reserved[3];
  alignas(64) Lane Lanes[LaneCount];
};

/// The whole segment: whole pages, as the driver registers it for the GPU
/// (StreamEnd.cpp) and cuMemHostRegister works on pages.
struct alignas(4096) Registry {
  alignas(64) Header Head;
  Slot Slots[SlotCount];
};

static_assert(std::is_standard_layout_v<Registry>);
static_assert(offsetof(Header, Magic) == 0 && offsetof(Header, Version) == 8 &&
                  offsetof(Header, Bytes) == 12,
              "the first 16 bytes identify every version of the layout");
static_assert(sizeof(Slot) == 448 && sizeof(Registry) == 32768);
static_assert(std::atomic_ref<uint64_t>::is_always_lock_free &&
                  std::atomic_ref<uint32_t>::is_always_lock_free,
              "lock-free atomics work across processes; others do not");
static_assert(alignof(uint64_t) >=
              std::atomic_ref<uint64_t>::required_alignment);

/// Atomic access to a field of the segment. Const fields are read through
/// the same mapping (std::atomic_ref<const T> is C++26): a load never writes.
template <class T> std::atomic_ref<T> field(T &F) { return std::atomic_ref(F); }
template <class T> std::atomic_ref<T> field(const T &F) {
  return std::atomic_ref(const_cast<T &>(F));
}

inline uint32_t pidOf(uint64_t Owner) { return uint32_t(Owner); }
inline uint32_t generationOf(uint64_t Owner) { return uint32_t(Owner >> 32); }
inline uint64_t ownerWord(uint32_t Generation, uint32_t Pid) {
  return uint64_t(Generation) << 32 | Pid;
}

} // namespace baton::share

#endif // BATON_LIB_SHARE_LAYOUT_H
