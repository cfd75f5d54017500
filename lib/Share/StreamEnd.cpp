//===- StreamEnd.cpp - Ends of LC work as streams reach them --------------===//
//
// Lanes and the GPU. A lane's Issued is stored (relaxed) before its write is
// queued, and the Member counts the end in Finished with release after
// queue() returns; readers load Finished with acquire before the lanes
// (Slots.cpp), so they never miss an end that left the host count.
//
// Done is written by the device: cuStreamWriteValue32 with default flags is
// preceded by a fence that makes all earlier work of the stream visible
// system-wide, and is itself one aligned 32-bit store into pinned, mapped
// host memory, so a host load of Done sees the old or the new sequence,
// never a torn one. cuMemsetD32Async of one word, the fallback, is stream
// ordered too (it starts once the stream's earlier work is complete) and
// stores the word whole. Hosts load Done through std::atomic_ref so that
// the compiler reads memory each time.
//
// Why a fallback: a driver may refuse stream memory operations
// (CUDA_ERROR_NOT_SUPPORTED, or INVALID_VALUE for memory it cannot reach
// that way); the refusal is reported once with what the driver says the
// address is (cuPointerGetAttribute), and the memset, an ordinary device
// write through the same mapping, takes over.
//
//===----------------------------------------------------------------------===//

#include "StreamEnd.h"

#include "Driver.h"
#include "Error.h"
#include "Process.h"

#include "baton/Runtime.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

using namespace baton::share;
using baton::detail::describe;
using baton::detail::driver;

namespace {

constexpr std::memory_order Relaxed = std::memory_order_relaxed;

void check(CUresult R, const char *Call) {
  if (R != CUDA_SUCCESS)
    throw Failure(BATON_SHARE_ERROR_CUDA,
                  std::string(Call) + " failed: " + describe(R));
}

CUcontext currentContext() {
  CUcontext Ctx = nullptr;
  check(driver().cuCtxGetCurrent(&Ctx), "cuCtxGetCurrent");
  if (!Ctx)
    throw Failure(BATON_SHARE_ERROR_CUDA,
                  "baton_share_end_on_stream: no CUDA context is current on "
                  "this thread (make the stream's context current)");
  return Ctx;
}

bool eventsRequested() {
  const char *V = std::getenv("BATON_SHARE_END");
  return V && std::strcmp(V, "events") == 0;
}

/// What the driver says \p Addr is, for the message that explains a
/// refused stream write.
std::string describeAddress(CUdeviceptr Addr) {
  const auto &D = driver();
  unsigned Type = 0, Managed = 0;
  if (D.cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Addr) !=
      CUDA_SUCCESS)
    return "an address the driver does not know";
  D.cuPointerGetAttribute(&Managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, Addr);
  const char *Kind = Type == CU_MEMORYTYPE_HOST      ? "host"
                     : Type == CU_MEMORYTYPE_DEVICE  ? "device"
                     : Type == CU_MEMORYTYPE_UNIFIED ? "unified"
                                                     : "other";
  return std::string(Kind) + " memory" + (Managed ? ", managed" : "");
}

/// Explains why ends on streams take the event path from now on.
void reportEventFallback(const std::string &Why) {
  std::fprintf(stderr,
               "baton: share: %s; ends on streams are seen by polling events "
               "from a host thread instead (tens of microseconds later)\n",
               Why.c_str());
}

uint32_t ahead(const Lane &L) {
  return field(L.Issued).load(Relaxed) - field(L.Done).load(Relaxed);
}

} // namespace

StreamEnds::StreamEnds(Slot &Mine, Registry &Whole)
    : Mine(Mine), Whole(Whole), EventsOnly(eventsRequested()) {}

StreamEnds::~StreamEnds() {
  // An event still pending completes on its own.
  for (const StreamEvent &E : Events)
    driver().cuEventDestroy(E.Event);
  for (const SpareEvent &E : Spare)
    driver().cuEventDestroy(E.Event);
}

bool StreamEnds::mapped() {
  if (State != Mapping::NotYet)
    return State == Mapping::Mapped;
  // PORTABLE: every context of the process may use the mapping; with
  // unified addressing the device pointer is the same in all of them.
  const auto &D = driver();
  CUresult R = D.cuMemHostRegister(&Whole, sizeof(Registry),
                                   CU_MEMHOSTREGISTER_DEVICEMAP |
                                       CU_MEMHOSTREGISTER_PORTABLE);
  if (R == CUDA_SUCCESS) {
    R = D.cuMemHostGetDevicePointer(&DeviceBase, &Whole, 0);
    if (R != CUDA_SUCCESS)
      D.cuMemHostUnregister(&Whole);
  }
  if (R != CUDA_SUCCESS) {
    reportEventFallback("cannot map the registry for the GPU (" +
                        describe(R) + ")");
    State = Mapping::Failed;
    return false;
  }
  State = Mapping::Mapped;
  Registered = true;
  return true;
}

std::optional<uint32_t> StreamEnds::laneFor(CUstream Stream, uint64_t Now) {
  if (auto It = LaneOf.find(Stream); It != LaneOf.end()) {
    if (field(Mine.Lanes[It->second].State).load(Relaxed) == LaneBound)
      return It->second;
    LaneOf.erase(It); // retired by the lease
  }
  std::optional<uint32_t> Found;
  for (uint32_t I = 0; I < LaneCount && !Found; ++I)
    if (field(Mine.Lanes[I].State).load(Relaxed) == LaneFree)
      Found = I;
  // A lane whose stream has reached all its ends may change streams: the
  // old stream has no write of it left to make.
  for (auto It = LaneOf.begin(); It != LaneOf.end() && !Found; ++It)
    if (ahead(Mine.Lanes[It->second]) == 0) {
      Found = It->second;
      LaneOf.erase(It);
    }
  if (!Found)
    return std::nullopt;
  field(Mine.Lanes[*Found].State).store(LaneBound, Relaxed);
  auto Used = field(Mine.LanesUsed);
  if (Used.load(Relaxed) <= *Found)
    Used.store(*Found + 1, Relaxed); // ordered by Finished (file comment)
  LaneOf[Stream] = *Found;
  Watches[*Found] = {field(Mine.Lanes[*Found].Done).load(Relaxed), Now};
  return Found;
}

CUresult StreamEnds::writeDone(CUstream Stream, CUdeviceptr Addr,
                               uint32_t Value) {
  const auto &D = driver();
  if (How == Writer::Memset)
    return D.cuMemsetD32Async(Addr, Value, 1, Stream);
  CUresult R = D.cuStreamWriteValue32(Stream, Addr, Value,
                                      CU_STREAM_WRITE_VALUE_DEFAULT);
  if (R != CUDA_ERROR_INVALID_VALUE && R != CUDA_ERROR_NOT_SUPPORTED)
    return R;
  // Refused before anything was queued: the memset writes the same word.
  CUresult M = D.cuMemsetD32Async(Addr, Value, 1, Stream);
  std::string Refusal = "the driver refuses cuStreamWriteValue32 into the "
                        "registry (" +
                        describe(R) + "; the address is " +
                        describeAddress(Addr) + ")";
  if (M != CUDA_SUCCESS) {
    reportEventFallback(Refusal + "; cuMemsetD32Async failed too (" +
                        describe(M) + ")");
    return R;
  }
  std::fprintf(stderr,
               "baton: share: %s; streams write their ends with "
               "cuMemsetD32Async instead\n",
               Refusal.c_str());
  How = Writer::Memset;
  return M;
}

StreamEnds::Path StreamEnds::queue(CUstream Stream, uint64_t Ticket,
                                   uint64_t Now) {
  CUcontext Ctx = currentContext();
  // Captured, the end would be written at every replay of the graph
  // instead of now, and a lane's Done would go back to old sequences.
  CUstreamCaptureStatus Capture = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult Asked = driver().cuStreamIsCapturing(Stream, &Capture);
  if (Asked == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT ||
      (Asked == CUDA_SUCCESS && Capture != CU_STREAM_CAPTURE_STATUS_NONE))
    throw Failure(BATON_SHARE_ERROR_INVALID_ARGUMENT,
                  "baton_share_end_on_stream: the stream is capturing a CUDA "
                  "graph (end the work with baton_share_end, or announce the "
                  "graph's launches instead)");
  check(Asked, "cuStreamIsCapturing");
  if (EventsOnly || !mapped())
    return queueEvent(Stream, Ctx, Ticket);
  std::optional<uint32_t> Index = laneFor(Stream, Now);
  if (!Index)
    return queueEvent(Stream, Ctx, Ticket);
  Lane &L = Mine.Lanes[*Index];
  uint32_t Before = field(L.Issued).load(Relaxed);
  if (field(L.Done).load(Relaxed) == Before)
    Watches[*Index] = {Before, Now}; // the lease runs from now
  field(L.Issued).store(Before + 1, Relaxed);
  CUdeviceptr Done =
      DeviceBase + CUdeviceptr(reinterpret_cast<std::byte *>(&L.Done) -
                               reinterpret_cast<std::byte *>(&Whole));
  CUresult R = writeDone(Stream, Done, Before + 1);
  if (R == CUDA_SUCCESS) {
    field(Mine.Flags).fetch_or(FlagGpuWrite, Relaxed);
    return Path::GpuWrite;
  }
  // Nothing was queued.
  field(L.Issued).store(Before, Relaxed);
  // (writeDone explained a refused stream write and a failed memset.)
  if (How == Writer::Memset ||
      (R != CUDA_ERROR_INVALID_VALUE && R != CUDA_ERROR_NOT_SUPPORTED))
    reportEventFallback("writing an end into the registry failed (" +
                        describe(R) + ")");
  State = Mapping::Failed;
  return queueEvent(Stream, Ctx, Ticket);
}

StreamEnds::Path StreamEnds::queueEvent(CUstream Stream, CUcontext Ctx,
                                        uint64_t Ticket) {
  const auto &D = driver();
  auto It = std::find_if(Events.begin(), Events.end(), [&](const auto &E) {
    return E.Stream == Stream && E.Context == Ctx;
  });
  if (It != Events.end()) {
    // Recorded again, the event completes when the stream gets here, which
    // is after every end it stood for so far.
    check(D.cuEventRecord(It->Event, Stream), "cuEventRecord");
    It->Tickets.push_back(Ticket);
  } else {
    CUevent Event = nullptr;
    auto SpareIt = std::find_if(Spare.begin(), Spare.end(), [&](const auto &E) {
      return E.Context == Ctx;
    });
    if (SpareIt != Spare.end()) {
      Event = SpareIt->Event;
      Spare.erase(SpareIt);
    } else {
      check(D.cuEventCreate(&Event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    }
    if (CUresult R = D.cuEventRecord(Event, Stream); R != CUDA_SUCCESS) {
      Spare.push_back({Ctx, Event});
      check(R, "cuEventRecord");
    }
    Events.push_back({Stream, Ctx, Event, {Ticket}});
  }
  field(Mine.Flags).fetch_or(FlagEventPoll, Relaxed);
  return Path::EventPoll;
}

std::vector<uint64_t> StreamEnds::pollEvents() {
  std::vector<uint64_t> Done;
  const auto &D = driver();
  for (size_t I = 0; I < Events.size();) {
    StreamEvent &E = Events[I];
    CUcontext Current = nullptr;
    D.cuCtxGetCurrent(&Current);
    if (Current != E.Context)
      D.cuCtxSetCurrent(E.Context);
    CUresult R = D.cuEventQuery(E.Event);
    if (R == CUDA_ERROR_NOT_READY) {
      ++I;
      continue;
    }
    // An error means the stream failed: its work is over either way.
    Done.insert(Done.end(), E.Tickets.begin(), E.Tickets.end());
    if (R == CUDA_SUCCESS)
      Spare.push_back({E.Context, E.Event});
    else
      D.cuEventDestroy(E.Event);
    E = std::move(Events.back());
    Events.pop_back();
  }
  return Done;
}

void StreamEnds::forgetEvent(uint64_t Ticket) {
  for (size_t I = 0; I < Events.size(); ++I) {
    std::vector<uint64_t> &T = Events[I].Tickets;
    auto It = std::find(T.begin(), T.end(), Ticket);
    if (It == T.end())
      continue;
    T.erase(It);
    if (T.empty()) {
      // Still pending maybe: recording it again elsewhere is allowed.
      Spare.push_back({Events[I].Context, Events[I].Event});
      Events[I] = std::move(Events.back());
      Events.pop_back();
    }
    return;
  }
}

void StreamEnds::retire(uint32_t Index) {
  Lane &L = Mine.Lanes[Index];
  field(Mine.Expired).fetch_add(ahead(L), Relaxed);
  field(L.State).store(LaneRetired, Relaxed);
  std::erase_if(LaneOf, [&](const auto &E) { return E.second == Index; });
}

uint64_t StreamEnds::expireLanes(uint64_t Now, uint64_t LeaseNs) {
  uint64_t Released = 0;
  for (uint32_t I = 0; I < LaneCount; ++I) {
    Lane &L = Mine.Lanes[I];
    uint32_t State = field(L.State).load(Relaxed);
    uint32_t Done = field(L.Done).load(Relaxed);
    uint32_t Ahead = field(L.Issued).load(Relaxed) - Done;
    if (State == LaneRetired && Ahead == 0) {
      field(L.State).store(LaneFree, Relaxed); // caught up: usable again
    } else if (State == LaneBound && Done != Watches[I].Done) {
      Watches[I] = {Done, Now};
    } else if (State == LaneBound && Ahead != 0 &&
               Now - Watches[I].SinceNs > LeaseNs) {
      Released += Ahead;
      retire(I);
    }
  }
  return Released;
}

bool StreamEnds::drain(uint64_t DeadlineNs) const {
  for (;;) {
    bool Drained = true;
    for (const Lane &L : Mine.Lanes)
      Drained &= ahead(L) == 0;
    if (Drained)
      return true;
    if (nowNs() >= DeadlineNs)
      return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

uint64_t StreamEnds::retireAll() {
  uint64_t Released = 0;
  for (uint32_t I = 0; I < LaneCount; ++I)
    if (uint32_t Ahead = ahead(Mine.Lanes[I])) {
      Released += Ahead;
      retire(I);
    }
  return Released;
}

void StreamEnds::unmap() {
  if (Registered)
    driver().cuMemHostUnregister(&Whole);
  Registered = false;
}
