//===- Runtime.cpp - Context, control stream, module loading --------------===//
//
// The Runtime retains the device's primary context (the one the CUDA runtime
// API and frameworks use, so Baton's launches share their memory and
// streams), creates the control stream at the highest priority the device
// offers, and loads the runtime's own PTX.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Impl.h"
#include "LaunchMath.h"
#include "RuntimeKernels.h"
#include "SliceFeeder.h"

#include "baton/Capture.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

using namespace baton;
using namespace baton::detail;

ScopedContext::ScopedContext(CUcontext Context) {
  check(driver().cuCtxPushCurrent(Context), "cuCtxPushCurrent");
}

ScopedContext::~ScopedContext() {
  CUcontext Popped;
  driver().cuCtxPopCurrent(&Popped);
}

/// Loads every function of \p Handle now. Under lazy loading (the CUDA
/// default) the driver loads a function at its first use, and loading may
/// wait for the device to go idle; while a scheduler holds a stream waiting
/// on a paused launch it never does, so the first launch of a kernel would
/// deadlock. Loading the whole module when Baton first sees it avoids that.
static void loadAllFunctions(CUmodule Handle) {
  for (CUfunction Fn : moduleFunctions(Handle))
    check(driver().cuFuncLoad(Fn), "cuFuncLoad");
}

RuntimeImpl::RuntimeImpl(const RuntimeOptions &Opts)
    : Options(Opts), Streams(Opts.PrivateStreams) {
  const DriverApi &D = driver();
  if (Options.SliceWindow == 0)
    throw Error(ErrorKind::InvalidArgument,
                "RuntimeOptions::SliceWindow must be at least 1");
  if (Options.PrivateStreams == 0)
    throw Error(ErrorKind::InvalidArgument,
                "RuntimeOptions::PrivateStreams must be at least 1");
  // Streams holding paused launches wait on the device, and the default 8
  // hardware queues stall once about 8 streams wait (Runtime.h). The driver
  // reads this when CUDA is first initialised in the process.
  const char *Given = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  int Asked = Given ? std::atoi(Given) : 32;
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
  check(D.cuInit(0), "cuInit");
  check(D.cuDeviceGet(&Device, Options.Device), "cuDeviceGet");
  // A context created before this point got the variable's value of then:
  // the one the environment still holds if it was set, else the default.
  unsigned Flags = 0;
  int Active = 0;
  check(D.cuDevicePrimaryCtxGetState(Device, &Flags, &Active),
        "cuDevicePrimaryCtxGetState");
  HardwareQueues = std::max(Active && !Given ? 8 : Asked, 1);
  check(D.cuDevicePrimaryCtxRetain(&Context, Device),
        "cuDevicePrimaryCtxRetain");
  try {
    ScopedContext Scope(Context);
    check(D.cuDeviceGetAttribute(&Multiprocessors,
                                 CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                 Device),
          "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
    int Least = 0, Greatest = 0;
    check(D.cuCtxGetStreamPriorityRange(&Least, &Greatest),
          "cuCtxGetStreamPriorityRange");
    check(D.cuStreamCreateWithPriority(&Control, CU_STREAM_NON_BLOCKING,
                                       Greatest),
          "cuStreamCreateWithPriority (control stream)");
    int Major = 0;
    check(D.cuDeviceGetAttribute(&Major,
                                 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                 Device),
          "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)");
    FinalizeIsDependent = Options.DependentFinalize && Major >= 9;
    check(D.cuModuleLoadDataEx(&Own,
                               FinalizeIsDependent ? FinalizeDependentPtx
                                                   : FinalizePtx,
                               0, nullptr, nullptr),
          "cuModuleLoadDataEx (runtime kernels)");
    loadAllFunctions(Own);
    check(D.cuModuleGetFunction(&Finalize, Own, FinalizeKernelName),
          "cuModuleGetFunction", FinalizeKernelName);
  } catch (...) {
    release();
    throw;
  }
}

RuntimeImpl::~RuntimeImpl() { release(); }

void RuntimeImpl::release() noexcept {
  // Runs with the last Module/Kernel/Launch gone, so nothing is in flight
  // that uses these objects. Errors are ignored: teardown must release all
  // it can even when the context was lost to a kernel fault.
  if (Feeder) {
    Feeder->stop();
    Feeder.reset();
  }
  if (!Context)
    return; // the constructor failed before there was anything to release
  const DriverApi &D = driver();
  if (contextAlive() && D.cuCtxPushCurrent(Context) == CUDA_SUCCESS) {
    Streams.destroyAll();
    for (auto *Free : {&FreeEvents, &FreeTimedEvents}) {
      for (CUevent Event : *Free)
        D.cuEventDestroy(Event);
      Free->clear();
    }
    if (Own)
      D.cuModuleUnload(Own);
    if (Control)
      D.cuStreamDestroy(Control);
    Tasks.releaseAll();
    CUcontext Popped;
    D.cuCtxPopCurrent(&Popped);
  }
  D.cuDevicePrimaryCtxRelease(Device);
  Own = nullptr;
  Control = nullptr;
  Context = nullptr;
}

bool RuntimeImpl::contextAlive() const noexcept {
  // A reset leaves the retained primary context inactive until something
  // makes it current again, which the runtime's own calls would do: asked
  // before any of them, the state tells a reset apart.
  unsigned Flags = 0;
  int Active = 0;
  return driver().cuDevicePrimaryCtxGetState(Device, &Flags, &Active) ==
             CUDA_SUCCESS &&
         Active;
}

void RuntimeImpl::checkContext(std::string_view Kernel) const {
  if (contextAlive())
    return;
  std::string Message = "the CUDA context of device " +
                        std::to_string(Options.Device) +
                        " was reset or destroyed under the Baton runtime "
                        "(cuDevicePrimaryCtxReset or cudaDeviceReset)";
  if (!Kernel.empty())
    Message += "; the launch of '" + std::string(Kernel) +
               "' is lost and cannot be paused, resumed or waited for";
  throw Error(ErrorKind::Cuda, Message, CUDA_ERROR_CONTEXT_IS_DESTROYED);
}

CUevent RuntimeImpl::acquireEvent(bool Timed) {
  {
    std::lock_guard Lock(EventMutex);
    auto &Free = Timed ? FreeTimedEvents : FreeEvents;
    if (!Free.empty()) {
      CUevent Event = Free.back();
      Free.pop_back();
      return Event;
    }
  }
  CUevent Event = nullptr;
  check(driver().cuEventCreate(&Event, Timed ? CU_EVENT_DEFAULT
                                             : CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
  return Event;
}

void RuntimeImpl::releaseEvent(CUevent Event, bool Timed) {
  std::lock_guard Lock(EventMutex);
  (Timed ? FreeTimedEvents : FreeEvents).push_back(Event);
}

SliceFeeder &RuntimeImpl::feeder() {
  std::lock_guard Lock(FeederMutex);
  if (!Feeder)
    Feeder = SliceFeeder::start(Context);
  return *Feeder;
}

void RuntimeImpl::writePreempt(const TaskSlot &Slot, uint32_t Watermark) {
  writeTaskWord(Slot, BATON_TASK_OFFSET_PREEMPT, Watermark, "preempt flag");
}

void RuntimeImpl::writeTaskWord(const TaskSlot &Slot, uint32_t Offset,
                                uint32_t Value, std::string_view What) {
  const DriverApi &D = driver();
  CUdeviceptr Word = Slot.Task + Offset;
  CUresult R;
  const char *Call;
  if (Options.Signal == PreemptSignal::StreamWrite) {
    R = D.cuStreamWriteValue32(Control, Word, Value,
                               CU_STREAM_WRITE_VALUE_DEFAULT);
    Call = "cuStreamWriteValue32";
  } else if (Value == 0 || Value == BATON_PREEMPT_ALL) {
    R = D.cuMemcpyHtoDAsync(Word,
                            Value ? Tasks.pinnedAll() : Tasks.pinnedZero(),
                            sizeof(uint32_t), Control);
    Call = "cuMemcpyHtoDAsync";
  } else {
    R = D.cuMemsetD32Async(Word, Value, 1, Control);
    Call = "cuMemsetD32Async";
  }
  // The message is built only for a failure: a pause writes the flag.
  if (R != CUDA_SUCCESS)
    check(R, std::string(Call) + " (" + std::string(What) + ")");
}

void RuntimeImpl::readTask(const TaskSlot &Slot, std::string_view Kernel) {
  const DriverApi &D = driver();
  check(D.cuMemcpyDtoHAsync(Slot.Mirror, Slot.Task, sizeof(baton_task),
                            Control),
        "cuMemcpyDtoHAsync (task)", Kernel);
  check(D.cuStreamSynchronize(Control), "cuStreamSynchronize (control)",
        Kernel);
}

uint32_t RuntimeImpl::coResident(CUfunction Fn, const Dim3 &Block,
                                 uint32_t SharedMemBytes,
                                 uint64_t VirtualBlocks,
                                 std::string_view Kernel) const {
  int PerSm = 0;
  int Threads = int(Block.x * Block.y * Block.z);
  check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &PerSm, Fn, Threads, SharedMemBytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", Kernel);
  return coResidentWidth(PerSm, Multiprocessors, VirtualBlocks, Kernel);
}

//===-- Runtime handle ----------------------------------------------------===//

Runtime::Runtime(const RuntimeOptions &Options)
    : Impl(std::make_shared<RuntimeImpl>(Options)) {}
Runtime::~Runtime() = default;
Runtime::Runtime(Runtime &&) noexcept = default;
Runtime &Runtime::operator=(Runtime &&) noexcept = default;

CUcontext Runtime::context() const { return Impl->Context; }
CUdevice Runtime::device() const { return Impl->Device; }
int Runtime::multiprocessorCount() const { return Impl->Multiprocessors; }
int Runtime::hardwareQueues() const { return Impl->HardwareQueues; }
const RuntimeOptions &Runtime::options() const { return Impl->Options; }

Module Runtime::loadPtx(std::string_view Ptx) {
  std::string Text(Ptx); // cuModuleLoadDataEx wants NUL-terminated PTX
  return loadImage(std::as_bytes(std::span(Text.c_str(), Text.size() + 1)));
}

Module Runtime::loadImage(std::span<const std::byte> Image) {
  const DriverApi &D = driver();
  ScopedContext Scope(Impl->Context);
  // The JIT's error log turns "CUDA_ERROR_INVALID_PTX" into the ptxas
  // message with a line number.
  std::string Log(8192, '\0');
  CUjit_option Keys[] = {CU_JIT_ERROR_LOG_BUFFER,
                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *Values[] = {Log.data(), reinterpret_cast<void *>(Log.size())};
  CUmodule Handle = nullptr;
  CUresult R = D.cuModuleLoadDataEx(&Handle, Image.data(), 2, Keys, Values);
  if (R != CUDA_SUCCESS) {
    Log.resize(Log.find('\0'));
    std::string Message = "cuModuleLoadDataEx failed: " + describe(R);
    if (!Log.empty())
      Message += "\n" + Log;
    throw Error(ErrorKind::Cuda, Message, R);
  }
  try {
    loadAllFunctions(Handle);
  } catch (...) {
    D.cuModuleUnload(Handle);
    throw;
  }
  return Module(std::make_shared<ModuleImpl>(Impl, Handle));
}

Module Runtime::loadFile(const std::filesystem::path &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw Error(ErrorKind::NotFound, "cannot open module " + Path.string());
  std::string Bytes((std::istreambuf_iterator<char>(In)),
                    std::istreambuf_iterator<char>());
  try {
    if (Path.extension() == ".ptx")
      return loadPtx(Bytes);
    return loadImage(std::as_bytes(std::span(Bytes.data(), Bytes.size())));
  } catch (const Error &E) {
    throw Error(E.kind(), Path.string() + ": " + E.what(), E.cudaResult());
  }
}

Kernel Runtime::kernelOf(CUfunction Function) {
  const DriverApi &D = driver();
  ScopedContext Scope(Impl->Context);
  CUmodule Handle = nullptr;
  check(D.cuFuncGetModule(&Handle, Function), "cuFuncGetModule");
  const char *Name = nullptr;
  check(D.cuFuncGetName(&Name, Function), "cuFuncGetName");
  std::shared_ptr<ModuleImpl> M;
  {
    std::lock_guard Lock(Impl->AdoptedMutex);
    std::weak_ptr<ModuleImpl> &Known = Impl->Adopted[Handle];
    M = Known.lock();
    if (!M) {
      loadAllFunctions(Handle);
      M = std::make_shared<ModuleImpl>(Impl, Handle, /*Owned=*/false);
      Known = M;
    }
  }
  return Module(std::move(M)).kernel(Name);
}

Launch Runtime::launch(const Kernel &K, const LaunchConfig &Config,
                       std::span<void *const> Args) {
  ScopedContext Scope(Impl->Context);
  if (Config.Stream && streamCapturing(Config.Stream))
    throw Error(ErrorKind::InvalidState,
                "launch of '" + K.name() +
                    "': its stream is capturing a CUDA graph (launch the "
                    "original kernel there; a graph's replays cannot be "
                    "scheduled)");
  auto L = std::make_shared<LaunchImpl>(K.Impl, Config);
  L->start(Args);
  return Launch(std::move(L));
}

uint32_t Runtime::defaultWidth(const Kernel &K,
                               const LaunchConfig &Config) const {
  validateLaunch(Config, K.name());
  uint64_t Blocks = virtualBlockCount(Config.Grid);
  if (Config.LaunchMode == Mode::Original)
    return uint32_t(std::min<uint64_t>(Blocks, UINT32_MAX));
  ScopedContext Scope(Impl->Context);
  CUfunction Fn = K.function(Config.LaunchMode);
  uint32_t Shared = LaunchImpl::sharedMemFor(Config.LaunchMode, Config);
  K.Impl->allowSharedMemory(Config.LaunchMode, Shared);
  return Impl->coResident(Fn, Config.Block, Shared, Blocks, K.name());
}
