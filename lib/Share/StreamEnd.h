//===- StreamEnd.h - Ends of LC work as streams reach them ------*- C++ -*-===//
//
// baton_share_end_on_stream, without a thread of the LC process waiting for
// the stream. The registry segment is registered with the driver
// (cuMemHostRegister, DEVICEMAP), and each stream that carries ends is
// bound to a lane of the process's slot: Lane::Issued counts the ends
// queued on the stream, and the stream itself writes each one's sequence
// into Lane::Done when it reaches it: with cuStreamWriteValue32, or, where
// the driver refuses stream memory operations on the registry's address,
// with cuMemsetD32Async. Peers read the lane directly; the stream's order
// makes Done grow monotonically.
//
// Where neither write is accepted (or BATON_SHARE_END=events), or every
// lane is busy with another stream, the end becomes a CUDA event that the
// Member's thread polls (pollEvents): one event per stream, recorded again
// at each end, so that a poll costs a query per stream, not per end.
//
// Not thread-safe: the Member's mutex guards every call.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_SHARE_STREAMEND_H
#define BATON_LIB_SHARE_STREAMEND_H

#include "Layout.h"

#include <cuda.h>

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace baton::share {

class StreamEnds {
public:
  /// \p Mine is this process's slot in \p Whole, the mapped registry that
  /// the GPU writes lanes into.
  StreamEnds(Slot &Mine, Registry &Whole);
  /// Destroys the events left (their tickets are forgotten). The
  /// registration is undone by unmap(), not here: only a drained segment
  /// may be unregistered.
  ~StreamEnds();
  StreamEnds(const StreamEnds &) = delete;
  StreamEnds &operator=(const StreamEnds &) = delete;

  enum class Path { GpuWrite, EventPoll };
  /// Queues the end of \p Ticket on \p Stream, whose context must be
  /// current. GpuWrite: the lane counts the work from now on, and the
  /// caller stops counting it. EventPoll: the caller keeps counting it until
  /// pollEvents() returns \p Ticket. Throws Failure(CUDA).
  Path queue(CUstream Stream, uint64_t Ticket, uint64_t Now);

  bool eventsPending() const { return !Events.empty(); }
  /// The tickets whose streams have reached their ends (or failed) since
  /// last time.
  std::vector<uint64_t> pollEvents();
  /// Stops polling for \p Ticket (its work expired).
  void forgetEvent(uint64_t Ticket);

  /// The lease on lanes: a lane whose stream has not moved for \p LeaseNs
  /// while work is queued on it is retired (not counted) until it catches
  /// up. Returns how many ends were released that way.
  uint64_t expireLanes(uint64_t Now, uint64_t LeaseNs);

  /// Waits until every lane's stream has reached its last end, or until
  /// \p DeadlineNs. Returns whether they all did.
  bool drain(uint64_t DeadlineNs) const;
  /// Retires every lane with ends still queued; returns how many ends.
  uint64_t retireAll();
  /// Undoes the registration. Only after drain() returned true: the GPU
  /// must never write memory that is no longer pinned.
  void unmap();

private:
  bool mapped();
  std::optional<uint32_t> laneFor(CUstream Stream, uint64_t Now);
  /// Queues the stream's write of \p Value into the registry at \p Addr;
  /// switches to cuMemsetD32Async where the driver refuses the stream
  /// memory operation.
  CUresult writeDone(CUstream Stream, CUdeviceptr Addr, uint32_t Value);
  Path queueEvent(CUstream Stream, CUcontext Ctx, uint64_t Ticket);
  void retire(uint32_t Index);

  Slot &Mine;
  Registry &Whole;
  /// Failed: registering, or both ways of writing, failed; ends use events.
  enum class Mapping { NotYet, Mapped, Failed } State = Mapping::NotYet;
  /// How the stream writes a lane's Done.
  enum class Writer { StreamMemOp, Memset } How = Writer::StreamMemOp;
  bool Registered = false;
  bool EventsOnly;
  CUdeviceptr DeviceBase = 0;
  std::unordered_map<CUstream, uint32_t> LaneOf;
  /// Per lane: the last Done seen, and since when (the lease).
  struct Watch {
    uint32_t Done = 0;
    uint64_t SinceNs = 0;
  } Watches[LaneCount];
  /// A stream with ends pending on the event path: its event was last
  /// recorded after all of Tickets' work, so it completes once they all do.
  struct StreamEvent {
    CUstream Stream;
    CUcontext Context; ///< the legacy stream is one per context
    CUevent Event;
    std::vector<uint64_t> Tickets;
  };
  std::vector<StreamEvent> Events;
  struct SpareEvent {
    CUcontext Context;
    CUevent Event;
  };
  std::vector<SpareEvent> Spare; ///< events no stream uses, for reuse
};

} // namespace baton::share

#endif // BATON_LIB_SHARE_STREAMEND_H
