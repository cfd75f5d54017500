//===- SchedulerRuntime.cpp - The scheduler over baton::Runtime -----------===//
//
// poll() asks each launch that is running whether it has stopped
// (Launch::poll, an event query), so completions cost no thread and reach
// the scheduler as soon as its owner polls.
//
//===----------------------------------------------------------------------===//

#include "baton/SchedulerRuntime.h"
#include "baton/Capture.h"

#include "Driver.h"
#include "Impl.h"
#include "Trace.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

using namespace baton;
using namespace baton::sched;
using namespace baton::detail;

namespace {

/// Environment variable \p Name as a count of 32 bits, if it is set to one
/// (digits only); a warning on stderr if it is set to anything else.
std::optional<uint32_t> environmentCount(const char *Name) {
  const char *Value = std::getenv(Name);
  if (!Value || !*Value)
    return std::nullopt;
  std::string_view Text(Value);
  uint64_t N = 0;
  bool Digits = Text.size() <= 10;
  for (char C : Text) {
    Digits &= C >= '0' && C <= '9';
    N = N * 10 + static_cast<uint64_t>(C - '0');
  }
  if (!Digits || N > UINT32_MAX) {
    std::fprintf(stderr, "baton: ignoring %s=%s (not a count)\n", Name, Value);
    return std::nullopt;
  }
  return static_cast<uint32_t>(N);
}

class SteadyClock : public Clock {
public:
  Nanos now() const override {
    return std::chrono::duration_cast<Nanos>(
        std::chrono::steady_clock::now().time_since_epoch());
  }
};

struct Live {
  Launch L;
  bool Watched = false; ///< running: poll() reports when it stops
  Nanos StartedAt{0};
  uint32_t DoneAtStart = 0; ///< progress when (re)launched
  /// The BE queue whose launches complete in order (see poll()); none for
  /// LC work.
  std::optional<uint32_t> OrderedIn;
  bool Measured = true; ///< LaunchRequest::TimeRuns
};

int deviceAttribute(CUdevice Device, CUdevice_attribute A) {
  int Value = 0;
  check(driver().cuDeviceGetAttribute(&Value, A, Device),
        "cuDeviceGetAttribute");
  return Value;
}

Mode modeOf(Form F) {
  switch (F) {
  case Form::Original:
    return Mode::Original;
  case Form::Slices:
    return Mode::Slices;
  case Form::Ptb:
    return Mode::Ptb;
  }
  return Mode::Original;
}

} // namespace

Work baton::sched::makeWork(RuntimeWork W, PriorityClass Class, uint32_t Queue,
                            std::optional<std::chrono::microseconds> Slo) {
  const Kernel &K = W.K;
  KernelResources Used = K.resources();
  const Dim3 &G = W.Config.Grid, &B = W.Config.Block;
  KernelShape Shape;
  Shape.Name = K.name();
  Shape.Blocks = uint64_t(G.x) * G.y * G.z;
  Shape.ThreadsPerBlock = B.x * B.y * B.z;
  Shape.RegistersPerThread = Used.RegistersPerThread;
  Shape.SharedMemBytes = W.Config.SharedMemBytes + Used.StaticSharedBytes;
  Shape.HasPtb = K.hasVariant(Mode::Ptb);
  Shape.HasSlice = K.hasVariant(Mode::Slices);
  return {std::move(Shape), Class, Queue, Slo, std::move(W)};
}

struct RuntimeExecutor::Impl {
  Runtime &R;
  StreamPool &Streams; ///< R's: streams made while launches wait may hang
  DeviceFacts Facts;
  SteadyClock Time;
  CUstream LcStream = nullptr;
  std::map<uint32_t, CUstream> BeStreams;
  int Least = 0, Greatest = 0;

  std::map<uint64_t, std::unique_ptr<Live>> Launches;
  /// Done launches, destroyed on the next poll(): after the scheduler has
  /// acted on their completion, not on the way to it.
  std::vector<std::unique_ptr<Live>> Retired;

  Impl(Runtime &R, StreamPool &Streams) : R(R), Streams(Streams) {}
  CUstream takeStream(int Priority);
  CUstream beStream(uint32_t Queue);
  /// From now on poll() reports when \p Item stops; \p DoneAtStart is its
  /// progress at this (re)launch.
  void watch(Live &Item, uint32_t DoneAtStart);
  /// Runs paused launch \p Id again by \p Restart, given its Launch, and
  /// watches it; if \p Restart throws, retires the launch and rethrows.
  template <class F> void restart(uint64_t Id, F Restart);
  /// A launch's failure, rethrown by the next poll() (this one reports the
  /// launch Done, so that the scheduler goes on without it).
  std::exception_ptr Failure;
};

CUstream RuntimeExecutor::Impl::takeStream(int Priority) {
  ScopedContext Scope(R.context());
  return Streams.acquireLasting(Priority);
}

CUstream RuntimeExecutor::Impl::beStream(uint32_t Queue) {
  auto [It, New] = BeStreams.try_emplace(Queue, nullptr);
  if (New)
    It->second = takeStream(Least);
  return It->second;
}

void RuntimeExecutor::Impl::watch(Live &Item, uint32_t DoneAtStart) {
  Item.Watched = true;
  Item.StartedAt = Time.now();
  Item.DoneAtStart = DoneAtStart;
}

template <class F>
void RuntimeExecutor::Impl::restart(uint64_t Id, F Restart) {
  auto It = Launches.find(Id);
  if (It == Launches.end())
    throw Error(ErrorKind::InvalidState,
                "scheduler resumed launch " + std::to_string(Id) +
                    ", which the executor does not have");
  Live &Item = *It->second;
  // Paused, so progress is the checkpoint and costs no device read.
  uint32_t Checkpoint = Item.L.progress().Done;
  try {
    Restart(Item.L);
  } catch (...) {
    Retired.push_back(std::move(It->second));
    Launches.erase(It);
    throw;
  }
  watch(Item, Checkpoint);
}

RuntimeExecutor::RuntimeExecutor(Runtime &R, const DeviceFacts *Latencies)
    : P(std::make_unique<Impl>(R, R.Impl->Streams)) {
  if (Latencies)
    P->Facts = *Latencies;
  CUdevice Device = R.device();
  {
    ScopedContext Scope(R.context());
    check(driver().cuCtxGetStreamPriorityRange(&P->Least, &P->Greatest),
          "cuCtxGetStreamPriorityRange");
  }
  P->Facts.Multiprocessors = static_cast<uint32_t>(R.multiprocessorCount());
  SmLimits &Sm = P->Facts.Sm;
  Sm.MaxThreads = deviceAttribute(
      Device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  Sm.MaxBlocks = deviceAttribute(
      Device, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  Sm.Registers = deviceAttribute(
      Device, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  Sm.SharedMemBytes = deviceAttribute(
      Device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  P->Facts.SliceWindow = R.options().SliceWindow;
  P->Facts.CanResize = true; // Launch::resume(Width) relaunches at any width
  // Launch::vacate (task ABI 3); BATON_VACATE=0 turns it off, to compare
  // with space sharing by narrower relaunches.
  const char *Vacate = std::getenv("BATON_VACATE");
  P->Facts.CanVacate = !Vacate || std::string_view(Vacate) != "0";
  // BATON_PROMPT_WORKERS_PER_SM and BATON_PROMPT_WARPS_PER_SM: the limits
  // within which the width policy counts an SM as prompt (DeviceFacts), for
  // tuning; 0 is no limit.
  if (auto Workers = environmentCount("BATON_PROMPT_WORKERS_PER_SM"))
    P->Facts.PromptClaimWorkersPerSm = *Workers;
  if (auto Warps = environmentCount("BATON_PROMPT_WARPS_PER_SM"))
    P->Facts.PromptClaimWarpsPerSm = *Warps;
  // Half the hardware queues may hold launches waiting behind a head; the
  // rest stay for every other stream (the H200 held 24 waiting streams of
  // 32 queues without a stall, and stalled with 8 of 8).
  P->Facts.MaxLaunchesAhead =
      static_cast<uint32_t>(std::max(R.hardwareQueues() / 2, 1));
  P->LcStream = P->takeStream(P->Greatest);
}

RuntimeExecutor::~RuntimeExecutor() {
  P->Retired.clear();
  P->Launches.clear(); // resumes paused launches and waits for them
  P->Streams.release(P->LcStream);
  for (auto &[Queue, S] : P->BeStreams)
    P->Streams.release(S);
}

const DeviceFacts &RuntimeExecutor::facts() const { return P->Facts; }
const Clock &RuntimeExecutor::clock() const { return P->Time; }

void RuntimeExecutor::launch(const LaunchRequest &Request) {
  const auto *W =
      Request.Payload ? std::any_cast<RuntimeWork>(Request.Payload) : nullptr;
  if (!W)
    throw Error(ErrorKind::InvalidArgument,
                "scheduler work carries no RuntimeWork payload");
  LaunchConfig Config = W->Config;
  Config.LaunchMode = modeOf(Request.LaunchForm);
  if (!Config.Stream) // else the client's stream: its order must hold
    Config.Stream =
        Request.HighPriority ? P->LcStream : P->beStream(Request.Queue);
  Config.StartPaused = Request.StartPaused;
  Config.Workers = Request.LaunchForm == Form::Ptb ? Request.Width : 0;
  Config.ClaimChunk = Request.ClaimChunk;
  Config.CoveringShareLimit = Request.CoveringShareLimit;
  Config.TimeRuns = Request.TimeRuns;
  Config.SliceBlocks = Request.LaunchForm == Form::Slices ? Request.Width : 0;
  Config.VacatedSms = Request.LaunchForm == Form::Ptb ? Request.VacatedSms : 0;
  std::vector<void *> Args;
  for (const auto &Bytes : W->Args)
    Args.push_back(const_cast<std::byte *>(Bytes.data()));
  auto Item = std::make_unique<Live>(Live{P->R.launch(W->K, Config, Args),
                                          {}, Nanos(0), 0, std::nullopt,
                                          Request.TimeRuns});
  if (!Request.HighPriority)
    Item->OrderedIn = Request.Queue;
  BATON_TRACE("launch %llu '%s' form %d width %u chunk %u vacated %u "
              "covering %u%s%s%s",
              (unsigned long long)Request.Id, W->K.name().c_str(),
              int(Request.LaunchForm), Request.Width, Request.ClaimChunk,
              Config.VacatedSms, Config.CoveringShareLimit,
              Request.HighPriority ? " high-priority" : "",
              Request.StartPaused ? " start-paused" : "",
              Request.TimeRuns ? "" : " untimed");
  if (!Request.StartPaused) // a paused start reports nothing until resumed
    P->watch(*Item, 0);
  P->Launches[Request.Id] = std::move(Item);
}

void RuntimeExecutor::requestPause(uint64_t Id) {
  // poll() reports the pause once the last worker has left.
  BATON_TRACE("pause %llu", (unsigned long long)Id);
  P->Launches.at(Id)->L.requestPause();
}

// \p After needs nothing here: the launch resumed waits, on the device, for
// its client stream to reach it (Launch.cpp), which is after After is Done.
void RuntimeExecutor::resume(uint64_t Id, uint32_t Width, uint64_t After) {
  BATON_TRACE("resume %llu width %u%s", (unsigned long long)Id, Width,
              After ? " behind the launch ahead" : "");
  P->restart(Id, [&](Launch &L) { L.resume(Width); });
}

// \p After needs nothing here, as for resume().
void RuntimeExecutor::resumeAsOriginal(uint64_t Id, uint64_t After) {
  BATON_TRACE("original %llu%s", (unsigned long long)Id,
              After ? " behind the launch ahead" : "");
  P->restart(Id, [](Launch &L) { L.resumeAsOriginal(); });
}

void RuntimeExecutor::vacate(uint64_t Id, uint32_t Sms) {
  BATON_TRACE("vacate %llu sms %u", (unsigned long long)Id, Sms);
  P->Launches.at(Id)->L.vacate(Sms);
}

void RuntimeExecutor::serviceThreadStarted() {
  relaxCaptureModeForThisThread();
}

// The launches of a BE queue run one after another on its stream (each
// waits on the device for the one before it), so a launch cannot stop while
// an earlier launch of its queue still runs: once one of a queue is found
// running, the later ones (in id order, which is issue order) are not
// queried. A training job keeps several launches issued ahead, and each
// query is a driver call made with the service's lock held.
std::vector<Completion> RuntimeExecutor::poll() {
  P->Retired.clear();
  if (P->Failure)
    std::rethrow_exception(std::exchange(P->Failure, nullptr));
  std::vector<Completion> Out;
  std::vector<uint32_t> Busy; // queues with a launch still running
  for (auto It = P->Launches.begin(); It != P->Launches.end();) {
    auto &[Id, Item] = *It;
    LaunchState State = LaunchState::Running;
    bool Behind = Item->OrderedIn && std::find(Busy.begin(), Busy.end(),
                                               *Item->OrderedIn) != Busy.end();
    try {
      if (Item->Watched && !Behind)
        State = Item->L.poll();
    } catch (const std::exception &E) {
      // The runtime released the launch's stream when it failed.
      BATON_TRACE("launch %llu failed: %s", (unsigned long long)Id, E.what());
      if (!P->Failure)
        P->Failure = std::current_exception();
      State = LaunchState::Done;
    }
    if (State != LaunchState::Done && State != LaunchState::Paused) {
      if (Item->Watched && Item->OrderedIn && !Behind)
        Busy.push_back(*Item->OrderedIn);
      ++It;
      continue;
    }
    Item->Watched = false;
    Nanos At = P->Time.now();
    uint32_t Done = Item->L.progress().Done;
    // The device's time of the run where the runtime keeps it; the host's
    // also holds the wait behind the launches queued ahead.
    Nanos Elapsed = Item->L.lastRunTime().value_or(At - Item->StartedAt);
    Completion C{Id,
                 State == LaunchState::Done ? Completion::Done
                                            : Completion::Paused,
                 At, Elapsed, uint64_t(Done - Item->DoneAtStart),
                 Item->Measured};
    if (Item->L.mode() == Mode::Ptb)
      C.WorkersLeft = Item->L.workersLeftLastRun();
    BATON_TRACE("%s %llu after %lld us%s, %llu blocks, %u workers left",
                C.What == Completion::Done ? "done" : "paused",
                (unsigned long long)C.Id,
                (long long)std::chrono::duration_cast<std::chrono::microseconds>(
                    C.Elapsed)
                    .count(),
                C.Measured ? "" : " (not timed)",
                (unsigned long long)C.BlocksRun, C.WorkersLeft);
    Out.push_back(C);
    if (State == LaunchState::Done) {
      P->Retired.push_back(std::move(Item));
      It = P->Launches.erase(It);
    } else {
      ++It;
    }
  }
  return Out;
}
