//===- StreamPool.cpp - Private streams, created only while none waits ----===//

#include "StreamPool.h"

#include "Driver.h"

#include "baton/Runtime.h"

#include <atomic>
#include <cassert>
#include <cstdlib>
#include <iterator>
#include <string>

using namespace baton;
using namespace baton::detail;

static std::atomic<int64_t> &inFlight() {
  static std::atomic<int64_t> Count{0};
  return Count;
}

void LaunchesInFlight::add() noexcept { ++inFlight(); }
void LaunchesInFlight::remove() noexcept { --inFlight(); }
bool LaunchesInFlight::none() noexcept { return inFlight().load() == 0; }

void StreamPool::topUp(int Priority) {
  if (!LaunchesInFlight::none())
    return;
  // Nothing can be waiting for a resume, so a creation that waits on the
  // device waits only for work that runs by itself.
  for (size_t N = Free.count(Priority); N < Reserve; ++N) {
    CUstream S = nullptr;
    check(driver().cuStreamCreateWithPriority(&S, CU_STREAM_NON_BLOCKING,
                                              Priority),
          "cuStreamCreateWithPriority");
    Free.emplace(Priority, S);
    PriorityOf.emplace(S, Priority);
  }
}

void StreamPool::prepare(int Priority) {
  std::lock_guard Lock(Mutex);
  topUp(Priority);
}

CUstream StreamPool::acquire(int Priority, std::string_view User) {
  std::lock_guard Lock(Mutex);
  topUp(Priority);
  if (Free.empty())
    throw Error(
        ErrorKind::InvalidState,
        "no private stream is free for " + std::string(User) +
            ": the runtime has " + std::to_string(PriorityOf.size()) +
            ", all held by launches in flight, and makes more only while no "
            "launch is in flight (creating a stream can wait for a paused "
            "launch forever). Raise RuntimeOptions::PrivateStreams (now " +
            std::to_string(Reserve) + ") or keep fewer launches in flight");
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

void StreamPool::release(CUstream Stream) {
  std::lock_guard Lock(Mutex);
  auto It = PriorityOf.find(Stream);
  assert(It != PriorityOf.end() && "a stream the pool did not give");
  Free.emplace(It->second, Stream);
}

void StreamPool::destroyAll() noexcept {
  std::lock_guard Lock(Mutex);
  for (auto &[Stream, Priority] : PriorityOf)
    driver().cuStreamDestroy(Stream);
  PriorityOf.clear();
  Free.clear();
}
