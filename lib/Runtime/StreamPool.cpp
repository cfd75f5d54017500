//===- StreamPool.cpp - Private streams, created only while none waits ----===//

#include "StreamPool.h"

#include "Driver.h"

#include <cassert>
#include <cstdlib>
#include <iterator>
#include <string>

using namespace baton;
using namespace baton::detail;

namespace {
struct InFlightCount {
  std::mutex Mutex;
  int64_t Count = 0; ///< guarded by Mutex
};
InFlightCount &inFlight() {
  static InFlightCount State;
  return State;
}
} // namespace

void LaunchesInFlight::add() {
  std::lock_guard Lock(inFlight().Mutex);
  ++inFlight().Count;
}

void LaunchesInFlight::remove() noexcept {
  std::lock_guard Lock(inFlight().Mutex);
  --inFlight().Count;
}

std::unique_lock<std::mutex> LaunchesInFlight::holdIfNone() {
  std::unique_lock Lock(inFlight().Mutex);
  if (inFlight().Count != 0)
    Lock.unlock();
  return Lock;
}

StreamMaker baton::detail::driverStreams() {
  return {[](int Priority) {
            CUstream S = nullptr;
            check(driver().cuStreamCreateWithPriority(
                      &S, CU_STREAM_NON_BLOCKING, Priority),
                  "cuStreamCreateWithPriority");
            return S;
          },
          [](CUstream Stream) { driver().cuStreamDestroy(Stream); }};
}

void StreamPool::topUp(int Priority, uint32_t Target) {
  auto Quiet = LaunchesInFlight::holdIfNone();
  if (!Quiet.owns_lock())
    return;
  // Nothing can be waiting for a resume, nor start to while Quiet is held,
  // so a creation that waits on the device waits only for work that runs
  // by itself.
  for (size_t N = Free.count(Priority); N < Target; ++N) {
    CUstream S = Maker.Make(Priority);
    Free.emplace(Priority, S);
    PriorityOf.emplace(S, Priority);
  }
}

CUstream StreamPool::takeNearest(int Priority) {
  if (Free.empty())
    return nullptr;
  // The nearest priority: the run goes on, a little more or less urgent.
  auto It = Free.lower_bound(Priority);
  if (It == Free.end() ||
      (It->first != Priority && It != Free.begin() &&
       std::abs(std::prev(It)->first - Priority) <
           std::abs(It->first - Priority)))
    It = std::prev(It);
  CUstream S = It->second;
  Free.erase(It);
  return S;
}

Error StreamPool::noneFree(std::string_view User) const {
  return Error(
      ErrorKind::InvalidState,
      "no private stream is free for " + std::string(User) +
          ": the runtime has " + std::to_string(PriorityOf.size()) +
          ", all held by launches in flight, and makes more only while no "
          "launch is in flight (creating a stream can wait for a paused "
          "launch forever). Raise RuntimeOptions::PrivateStreams (now " +
          std::to_string(Reserve) + ") or keep fewer launches in flight");
}

void StreamPool::prepare(int Priority) {
  std::lock_guard Lock(Mutex);
  topUp(Priority, Reserve);
}

CUstream StreamPool::acquire(int Priority, std::string_view Kernel) {
  std::lock_guard Lock(Mutex);
  topUp(Priority, Reserve);
  if (CUstream S = takeNearest(Priority))
    return S;
  throw noneFree("the launch of '" + std::string(Kernel) + "'");
}

CUstream StreamPool::acquireLasting(int Priority) {
  std::lock_guard Lock(Mutex);
  topUp(Priority, 1);
  if (CUstream S = takeNearest(Priority))
    return S;
  throw noneFree("the scheduler's queues");
}

void StreamPool::release(CUstream Stream) {
  std::lock_guard Lock(Mutex);
  auto It = PriorityOf.find(Stream);
  assert(It != PriorityOf.end() && "a stream the pool did not give");
  Free.emplace(It->second, Stream);
}

void StreamPool::destroyAll() noexcept {
  std::lock_guard Lock(Mutex);
  for (auto &[Stream, Priority] : PriorityOf)
    Maker.Destroy(Stream);
  PriorityOf.clear();
  Free.clear();
}
