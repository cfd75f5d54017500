//===- DriverHooks.cpp - The driver entry points the interposer replaces --===//
#include "DriverHooks.h"

#include "Interposer.h"
#include "RealDriver.h"
#include "Report.h"

#include <cuda.h>

#include <atomic>
#include <cstring>
#include <string_view>

// cuda.h maps cuGetProcAddress to cuGetProcAddress_v2 (the CUDA 12 ABI);
// the hooks define both symbols, as libcuda exports both.
#undef cuGetProcAddress

using namespace baton;
using namespace baton::preload;

extern "C" {
CUresult cuGetProcAddress(const char *Symbol, void **Pfn, int CudaVersion,
                          cuuint64_t Flags);
CUresult cuLaunchKernel_ptsz(CUfunction F, unsigned GridX, unsigned GridY,
                             unsigned GridZ, unsigned BlockX, unsigned BlockY,
                             unsigned BlockZ, unsigned SharedMemBytes,
                             CUstream Stream, void **Params, void **Extra);
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *Config, CUfunction F,
                               void **Params, void **Extra);
CUresult cuLaunchCooperativeKernel_ptsz(
    CUfunction F, unsigned GridX, unsigned GridY, unsigned GridZ,
    unsigned BlockX, unsigned BlockY, unsigned BlockZ, unsigned SharedMemBytes,
    CUstream Stream, void **Params);
CUresult cuGraphLaunch_ptsz(CUgraphExec Graph, CUstream Stream);
}

namespace {

enum Hook : unsigned {
  GetProcAddress,
  GetProcAddressV2,
  LaunchKernel,
  LaunchKernelPtsz,
  LaunchKernelEx,
  LaunchKernelExPtsz,
  LaunchCooperative,
  LaunchCooperativePtsz,
  GraphLaunch,
  GraphLaunchPtsz,
  ModuleLoad,
  ModuleLoadData,
  ModuleLoadDataEx,
  ModuleLoadFatBinary,
  LibraryLoadData,
  LibraryLoadFromFile,
  HookCount
};

struct HookInfo {
  const char *Export; ///< libcuda's symbol
  void *Function;     ///< ours
};

const HookInfo Hooks[HookCount] = {
    {"cuGetProcAddress", reinterpret_cast<void *>(&cuGetProcAddress)},
    {"cuGetProcAddress_v2", reinterpret_cast<void *>(&cuGetProcAddress_v2)},
    {"cuLaunchKernel", reinterpret_cast<void *>(&cuLaunchKernel)},
    {"cuLaunchKernel_ptsz", reinterpret_cast<void *>(&cuLaunchKernel_ptsz)},
    {"cuLaunchKernelEx", reinterpret_cast<void *>(&cuLaunchKernelEx)},
    {"cuLaunchKernelEx_ptsz", reinterpret_cast<void *>(&cuLaunchKernelEx_ptsz)},
    {"cuLaunchCooperativeKernel",
     reinterpret_cast<void *>(&cuLaunchCooperativeKernel)},
    {"cuLaunchCooperativeKernel_ptsz",
     reinterpret_cast<void *>(&cuLaunchCooperativeKernel_ptsz)},
    {"cuGraphLaunch", reinterpret_cast<void *>(&cuGraphLaunch)},
    {"cuGraphLaunch_ptsz", reinterpret_cast<void *>(&cuGraphLaunch_ptsz)},
    {"cuModuleLoad", reinterpret_cast<void *>(&cuModuleLoad)},
    {"cuModuleLoadData", reinterpret_cast<void *>(&cuModuleLoadData)},
    {"cuModuleLoadDataEx", reinterpret_cast<void *>(&cuModuleLoadDataEx)},
    {"cuModuleLoadFatBinary", reinterpret_cast<void *>(&cuModuleLoadFatBinary)},
    {"cuLibraryLoadData", reinterpret_cast<void *>(&cuLibraryLoadData)},
    {"cuLibraryLoadFromFile", reinterpret_cast<void *>(&cuLibraryLoadFromFile)},
};

/// The functions the hooks stand in for, set by the first lookup.
std::atomic<void *> Real[HookCount];

/// Hook \p H for a lookup that found \p Found. Each hook has one ABI (the
/// cuGetProcAddress query's version and flags choose the hook), so a later
/// lookup that finds another entry for the same function (the driver may
/// hand out more than one) still gets the hook, which keeps calling the
/// first.
void *adopt(Hook H, void *Found) {
  void *Expected = nullptr;
  if (Found != Hooks[H].Function) // never a hook calling itself
    Real[H].compare_exchange_strong(Expected, Found);
  return Hooks[H].Function;
}

/// What hook \p H calls.
template <class Fn> Fn real(Hook H) {
  void *F = Real[H].load(std::memory_order_acquire);
  if (!F) {
    void *Export = driverSymbol(Hooks[H].Export);
    void *Expected = nullptr;
    F = Real[H].compare_exchange_strong(Expected, Export) ? Export : Expected;
  }
  return reinterpret_cast<Fn>(F);
}

/// The hook for cuGetProcAddress's answer \p Found to a query of \p Symbol.
void *hookForProcAddress(const char *Symbol, int CudaVersion,
                         cuuint64_t Flags, void *Found) {
  bool PerThread = Flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  std::string_view S = Symbol;
  if (S == "cuGetProcAddress")
    // The ABI changed in CUDA 12.0 (a status out-parameter was added).
    return adopt(CudaVersion >= 12000 ? GetProcAddressV2 : GetProcAddress,
                 Found);
  if (S == "cuLaunchKernel")
    return adopt(PerThread ? LaunchKernelPtsz : LaunchKernel, Found);
  if (S == "cuLaunchKernelEx")
    return adopt(PerThread ? LaunchKernelExPtsz : LaunchKernelEx, Found);
  if (S == "cuLaunchCooperativeKernel")
    return adopt(PerThread ? LaunchCooperativePtsz : LaunchCooperative, Found);
  if (S == "cuGraphLaunch")
    return adopt(PerThread ? GraphLaunchPtsz : GraphLaunch, Found);
  for (Hook H : {ModuleLoad, ModuleLoadData, ModuleLoadDataEx,
                 ModuleLoadFatBinary, LibraryLoadData, LibraryLoadFromFile})
    if (S == Hooks[H].Export)
      return adopt(H, Found);
  return nullptr;
}

/// Runs a launch that is not scheduled: in a latency-critical process,
/// announced before and ended on its stream after.
template <class Issue>
CUresult issueUnchanged(Interposer &I, CUstream Stream, Issue &&Launch) {
  uint64_t Ticket = I.announce(Stream);
  CUresult R = Launch();
  I.issued(Ticket, Stream, R);
  return R;
}

/// The hooks never let an exception reach the program (a C caller): the
/// launch then runs unchanged.
void reportFailure(const std::exception &E) {
  static std::atomic<bool> Reported{false};
  if (!Reported.exchange(true))
    report(std::string("internal error, launches run unchanged: ") + E.what());
}

CUresult launchKernel(Hook H, bool PerThread, CUfunction F, unsigned GridX,
                      unsigned GridY, unsigned GridZ, unsigned BlockX,
                      unsigned BlockY, unsigned BlockZ, unsigned Shared,
                      CUstream Stream, void **Params, void **Extra) {
  auto Fn = real<decltype(&::cuLaunchKernel)>(H);
  if (!Fn)
    return CUDA_ERROR_NOT_INITIALIZED;
  auto Issue = [&] {
    return Fn(F, GridX, GridY, GridZ, BlockX, BlockY, BlockZ, Shared, Stream,
              Params, Extra);
  };
  Interposer *I = Interposer::active();
  if (!I)
    return Issue();
  DriverLaunch L{F,      {GridX, GridY, GridZ}, {BlockX, BlockY, BlockZ},
                 Shared, Stream, PerThread, Params, Extra};
  try {
    if (std::optional<CUresult> Scheduled = I->schedule(L))
      return *Scheduled;
    return issueUnchanged(*I, L.stream(), Issue);
  } catch (const std::exception &E) {
    reportFailure(E);
    return Issue();
  }
}

/// How the attributes of a cuLaunchKernelEx launch let it be scheduled: not
/// at all if one changes what the launch means (clusters, programmatic
/// dependent launches, completion events, cooperative launches), which the
/// variants do not model. Hints that only tune performance (L2 access
/// policy, priority, memory synchronisation domains, shared-memory carveout)
/// and attributes set to "off" are no obstacle; a scheduled launch runs
/// without them.
std::optional<Unchanged> attributesAllowScheduling(const CUlaunchConfig &C) {
  for (unsigned A = 0; A < C.numAttrs; ++A) {
    const CUlaunchAttribute &Attr = C.attrs[A];
    switch (Attr.id) {
    case CU_LAUNCH_ATTRIBUTE_IGNORE:
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      break;
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
      if (Attr.value.cooperative)
        return Unchanged::Cooperative;
      break;
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
      if (Attr.value.programmaticStreamSerializationAllowed)
        return Unchanged::LaunchAttributes;
      break;
    default:
      return Unchanged::LaunchAttributes;
    }
  }
  return std::nullopt;
}

CUresult launchKernelEx(Hook H, bool PerThread, const CUlaunchConfig *Config,
                        CUfunction F, void **Params, void **Extra) {
  auto Fn = real<decltype(&::cuLaunchKernelEx)>(H);
  if (!Fn)
    return CUDA_ERROR_NOT_INITIALIZED;
  auto Issue = [&] { return Fn(Config, F, Params, Extra); };
  Interposer *I = Interposer::active();
  if (!I || !Config)
    return Issue();
  const CUlaunchConfig &C = *Config;
  DriverLaunch L{F,
                 {C.gridDimX, C.gridDimY, C.gridDimZ},
                 {C.blockDimX, C.blockDimY, C.blockDimZ},
                 C.sharedMemBytes,
                 C.hStream,
                 PerThread,
                 Params,
                 Extra};
  try {
    if (std::optional<Unchanged> Why = attributesAllowScheduling(C))
      I->unchanged(F, *Why);
    else if (std::optional<CUresult> Scheduled = I->schedule(L))
      return *Scheduled;
    return issueUnchanged(*I, L.stream(), Issue);
  } catch (const std::exception &E) {
    reportFailure(E);
    return Issue();
  }
}

CUresult launchCooperative(Hook H, bool PerThread, CUfunction F,
                           unsigned GridX, unsigned GridY, unsigned GridZ,
                           unsigned BlockX, unsigned BlockY, unsigned BlockZ,
                           unsigned Shared, CUstream Stream, void **Params) {
  auto Fn = real<decltype(&::cuLaunchCooperativeKernel)>(H);
  if (!Fn)
    return CUDA_ERROR_NOT_INITIALIZED;
  auto Issue = [&] {
    return Fn(F, GridX, GridY, GridZ, BlockX, BlockY, BlockZ, Shared, Stream,
              Params);
  };
  Interposer *I = Interposer::active();
  if (!I)
    return Issue();
  DriverLaunch L{F, {}, {}, Shared, Stream, PerThread, Params, nullptr};
  try {
    I->unchanged(F, Unchanged::Cooperative);
    return issueUnchanged(*I, L.stream(), Issue);
  } catch (const std::exception &E) {
    reportFailure(E);
    return Issue();
  }
}

CUresult graphLaunch(Hook H, bool PerThread, CUgraphExec Graph,
                     CUstream Stream) {
  auto Fn = real<decltype(&::cuGraphLaunch)>(H);
  if (!Fn)
    return CUDA_ERROR_NOT_INITIALIZED;
  auto Issue = [&] { return Fn(Graph, Stream); };
  Interposer *I = Interposer::active();
  if (!I)
    return Issue();
  DriverLaunch L;
  L.Stream = Stream;
  L.PerThreadStream = PerThread;
  try {
    I->unchanged(nullptr, Unchanged::Graph);
    return issueUnchanged(*I, L.stream(), Issue);
  } catch (const std::exception &E) {
    reportFailure(E);
    return Issue();
  }
}

/// A module load (hook \p H, of type \p Fn) made with the process's
/// best-effort work drained and held back, where it has any
/// (Interposer::holdForModuleLoad).
template <class Fn, class... Args> CUresult heldLoad(Hook H, Args... A) {
  auto Load = real<Fn>(H);
  if (!Load)
    return CUDA_ERROR_NOT_INITIALIZED;
  Interposer *I = Interposer::active();
  std::optional<sched::SchedulerService::BestEffortHold> Hold =
      [&]() -> decltype(Hold) {
    if (I)
      try {
        return I->holdForModuleLoad();
      } catch (const std::exception &E) {
        reportFailure(E);
      }
    return std::nullopt;
  }();
  return Load(A...);
}

} // namespace

bool preload::isHookedExport(const char *Symbol) {
  for (const HookInfo &H : Hooks)
    if (std::strcmp(H.Export, Symbol) == 0)
      return true;
  return false;
}

void *preload::hookForExport(const char *Symbol, void *Found) {
  for (unsigned H = 0; H < HookCount; ++H)
    if (std::strcmp(Hooks[H].Export, Symbol) == 0)
      return adopt(Hook(H), Found);
  return nullptr;
}

extern "C" {

CUresult cuGetProcAddress_v2(const char *Symbol, void **Pfn, int CudaVersion,
                             cuuint64_t Flags,
                             CUdriverProcAddressQueryResult *Status) {
  auto Fn = real<decltype(&::cuGetProcAddress_v2)>(GetProcAddressV2);
  if (!Fn)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult R = Fn(Symbol, Pfn, CudaVersion, Flags, Status);
  if (R == CUDA_SUCCESS && Symbol && Pfn && *Pfn)
    if (void *Hook = hookForProcAddress(Symbol, CudaVersion, Flags, *Pfn))
      *Pfn = Hook;
  return R;
}

CUresult cuGetProcAddress(const char *Symbol, void **Pfn, int CudaVersion,
                          cuuint64_t Flags) {
  auto Fn = real<decltype(&::cuGetProcAddress)>(GetProcAddress);
  if (!Fn)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult R = Fn(Symbol, Pfn, CudaVersion, Flags);
  if (R == CUDA_SUCCESS && Symbol && Pfn && *Pfn)
    if (void *Hook = hookForProcAddress(Symbol, CudaVersion, Flags, *Pfn))
      *Pfn = Hook;
  return R;
}

CUresult cuLaunchKernel(CUfunction F, unsigned GridX, unsigned GridY,
                        unsigned GridZ, unsigned BlockX, unsigned BlockY,
                        unsigned BlockZ, unsigned Shared, CUstream Stream,
                        void **Params, void **Extra) {
  return launchKernel(LaunchKernel, false, F, GridX, GridY, GridZ, BlockX,
                      BlockY, BlockZ, Shared, Stream, Params, Extra);
}

CUresult cuLaunchKernel_ptsz(CUfunction F, unsigned GridX, unsigned GridY,
                             unsigned GridZ, unsigned BlockX, unsigned BlockY,
                             unsigned BlockZ, unsigned Shared, CUstream Stream,
                             void **Params, void **Extra) {
  return launchKernel(LaunchKernelPtsz, true, F, GridX, GridY, GridZ, BlockX,
                      BlockY, BlockZ, Shared, Stream, Params, Extra);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *Config, CUfunction F,
                          void **Params, void **Extra) {
  return launchKernelEx(LaunchKernelEx, false, Config, F, Params, Extra);
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *Config, CUfunction F,
                               void **Params, void **Extra) {
  return launchKernelEx(LaunchKernelExPtsz, true, Config, F, Params, Extra);
}

CUresult cuLaunchCooperativeKernel(CUfunction F, unsigned GridX,
                                   unsigned GridY, unsigned GridZ,
                                   unsigned BlockX, unsigned BlockY,
                                   unsigned BlockZ, unsigned Shared,
                                   CUstream Stream, void **Params) {
  return launchCooperative(LaunchCooperative, false, F, GridX, GridY, GridZ,
                           BlockX, BlockY, BlockZ, Shared, Stream, Params);
}

CUresult cuLaunchCooperativeKernel_ptsz(CUfunction F, unsigned GridX,
                                        unsigned GridY, unsigned GridZ,
                                        unsigned BlockX, unsigned BlockY,
                                        unsigned BlockZ, unsigned Shared,
                                        CUstream Stream, void **Params) {
  return launchCooperative(LaunchCooperativePtsz, true, F, GridX, GridY, GridZ,
                           BlockX, BlockY, BlockZ, Shared, Stream, Params);
}

CUresult cuGraphLaunch(CUgraphExec Graph, CUstream Stream) {
  return graphLaunch(GraphLaunch, false, Graph, Stream);
}

CUresult cuGraphLaunch_ptsz(CUgraphExec Graph, CUstream Stream) {
  return graphLaunch(GraphLaunchPtsz, true, Graph, Stream);
}

CUresult cuModuleLoad(CUmodule *Module, const char *Path) {
  return heldLoad<decltype(&::cuModuleLoad)>(ModuleLoad, Module, Path);
}

CUresult cuModuleLoadData(CUmodule *Module, const void *Image) {
  return heldLoad<decltype(&::cuModuleLoadData)>(ModuleLoadData, Module,
                                                 Image);
}

CUresult cuModuleLoadDataEx(CUmodule *Module, const void *Image,
                            unsigned NumOptions, CUjit_option *Options,
                            void **OptionValues) {
  return heldLoad<decltype(&::cuModuleLoadDataEx)>(
      ModuleLoadDataEx, Module, Image, NumOptions, Options, OptionValues);
}

CUresult cuModuleLoadFatBinary(CUmodule *Module, const void *FatCubin) {
  return heldLoad<decltype(&::cuModuleLoadFatBinary)>(ModuleLoadFatBinary,
                                                      Module, FatCubin);
}

CUresult cuLibraryLoadData(CUlibrary *Library, const void *Code,
                           CUjit_option *JitOptions, void **JitOptionValues,
                           unsigned NumJitOptions,
                           CUlibraryOption *LibraryOptions,
                           void **LibraryOptionValues,
                           unsigned NumLibraryOptions) {
  return heldLoad<decltype(&::cuLibraryLoadData)>(
      LibraryLoadData, Library, Code, JitOptions, JitOptionValues,
      NumJitOptions, LibraryOptions, LibraryOptionValues, NumLibraryOptions);
}

CUresult cuLibraryLoadFromFile(CUlibrary *Library, const char *Path,
                               CUjit_option *JitOptions,
                               void **JitOptionValues, unsigned NumJitOptions,
                               CUlibraryOption *LibraryOptions,
                               void **LibraryOptionValues,
                               unsigned NumLibraryOptions) {
  return heldLoad<decltype(&::cuLibraryLoadFromFile)>(
      LibraryLoadFromFile, Library, Path, JitOptions, JitOptionValues,
      NumJitOptions, LibraryOptions, LibraryOptionValues, NumLibraryOptions);
}

} // extern "C"
