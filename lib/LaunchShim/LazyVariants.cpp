//===- LazyVariants.cpp - Variants built at a kernel's first launch -------===//
//
// The build runs on the thread of the first launch, with LazyVariants' lock
// held (other objects' first launches wait; the shim's own lock is free, so
// launches of kernels already resolved go on).
//
//===----------------------------------------------------------------------===//
#include "LazyVariants.h"

#include "LaunchRouter.h"

#include "baton/SideModule/Builder.h"
#include "baton/SideModule/Cache.h"

#include <cuda_runtime_api.h>
#include <link.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <thread>

using namespace baton;
namespace fs = std::filesystem;

namespace {

/// The objects registered by constructors. Function-local and never
/// destroyed: a constructor may run before this library's static objects
/// are built, and launches may come until the process ends.
std::mutex &registeredMutex() {
  static auto *M = new std::mutex;
  return *M;
}
std::set<fs::path> &registeredObjects() {
  static auto *Objects = new std::set<fs::path>;
  return *Objects;
}

bool registered(const fs::path &Object) {
  std::lock_guard Lock(registeredMutex());
  return registeredObjects().count(Object) != 0;
}

/// sm_XY of the scheduler's device.
std::string deviceArch(const Runtime &R) {
  int Major = 0, Minor = 0;
  int Device = R.options().Device;
  if (cudaDeviceGetAttribute(&Major, cudaDevAttrComputeCapabilityMajor,
                             Device) != cudaSuccess ||
      cudaDeviceGetAttribute(&Minor, cudaDevAttrComputeCapabilityMinor,
                             Device) != cudaSuccess)
    throw std::runtime_error("cannot ask the CUDA runtime for the compute "
                             "capability of device " +
                             std::to_string(Device));
  return "sm_" + std::to_string(Major) + std::to_string(Minor);
}

std::string whyNoVariants(const side::KernelRecord &K) {
  if (K.Status == side::KernelStatus::SassOnly)
    return "its object's fatbins hold no PTX for it, only SASS (" + K.Detail +
           "): compile with --cuda-include-ptx=<arch>";
  return "refused by the compiler (" + K.Reason + ": " + K.Detail + ")";
}

} // namespace

std::optional<fs::path> baton::objectContaining(const void *Address) {
  struct Search {
    uintptr_t Address;
    std::optional<std::string> Name;
  } S{reinterpret_cast<uintptr_t>(Address), std::nullopt};
  dl_iterate_phdr(
      [](dl_phdr_info *Info, size_t, void *Data) {
        auto *S = static_cast<Search *>(Data);
        for (unsigned I = 0; I < Info->dlpi_phnum; ++I) {
          const ElfW(Phdr) &P = Info->dlpi_phdr[I];
          uintptr_t Begin = Info->dlpi_addr + P.p_vaddr;
          if (P.p_type == PT_LOAD && S->Address >= Begin &&
              S->Address < Begin + P.p_memsz) {
            // The executable has an empty name.
            S->Name = Info->dlpi_name && *Info->dlpi_name ? Info->dlpi_name
                                                          : "/proc/self/exe";
            return 1;
          }
        }
        return 0;
      },
      &S);
  if (!S.Name)
    return std::nullopt;
  std::error_code EC;
  fs::path Real = fs::canonical(*S.Name, EC);
  if (EC)
    return std::nullopt;
  return Real;
}

void LazyVariants::registerObject(const void *Address) {
  // Resolved now: by the first launch the object could have been unloaded.
  std::optional<fs::path> Object = objectContaining(Address);
  if (!Object)
    return;
  std::lock_guard Lock(registeredMutex());
  registeredObjects().insert(*Object);
}

LazyVariants::ObjectState &LazyVariants::build(Runtime &R,
                                               const fs::path &Object) {
  auto [It, New] = Objects.try_emplace(Object);
  ObjectState &State = It->second;
  if (New) {
    State.Error = buildInto(R, Object, State);
    if (!State.Error.empty())
      std::fprintf(stderr, "baton: no variants for the kernels of %s: %s\n",
                   Object.c_str(), State.Error.c_str());
  }
  return State;
}

std::string LazyVariants::buildInto(Runtime &R, const fs::path &Object,
                                    ObjectState &State) {
  std::optional<fs::path> Root = side::defaultCacheRoot();
  if (!Root)
    return "no cache directory for side modules (set BATON_CACHE_DIR, "
           "XDG_CACHE_HOME or HOME)";
  side::BuildOptions Options;
  Options.CudaBin = side::defaultCudaBin();
  if (std::error_code EC; !fs::exists(Options.CudaBin / "ptxas", EC))
    return "no ptxas in " + Options.CudaBin.string() +
           " (set CUDA_PATH to the CUDA toolkit)";
  Options.CacheRoot = *Root;
  Options.Jobs = std::max(1u, std::thread::hardware_concurrency());
  Options.DataSections = false; // clang puts fatbins in .nv_fatbin only
  side::BuildResult Result;
  auto Start = std::chrono::steady_clock::now();
  try {
    Options.Archs = {deviceArch(R)};
    if (std::optional<std::string> Error =
            side::buildSideModule(Object, Options, Result))
      return "building its side module failed: " + *Error;
  } catch (const std::exception &E) {
    return E.what();
  }
  State.Dir = Result.Dir;
  State.Kernels = std::move(Result.Kernels);
  if (!Result.CacheHit || verboseRouting()) {
    double Seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - Start)
                         .count();
    unsigned WithVariants = 0;
    for (const side::KernelRecord &K : State.Kernels.Kernels)
      WithVariants += K.Status == side::KernelStatus::Variants;
    std::fprintf(stderr,
                 "baton: variants of %s %s in %.2f s (%u of %zu kernels; "
                 "side module %s)\n",
                 Object.c_str(), Result.CacheHit ? "found" : "built", Seconds,
                 WithVariants, State.Kernels.Kernels.size(),
                 State.Dir.c_str());
  }
  for (const std::string &W : Result.Warnings)
    std::fprintf(stderr, "baton: %s\n", W.c_str());
  return "";
}

std::optional<Kernel> LazyVariants::kernelFor(LaunchRouter &Router,
                                              const void *Stub,
                                              const Kernel &Original) {
  std::optional<fs::path> Object = objectContaining(Stub);
  if (!Object || !registered(*Object))
    return std::nullopt;
  std::lock_guard Lock(Mutex);
  Runtime &R = Router.runtime();
  ObjectState &State = build(R, *Object);
  if (!State.Error.empty())
    throw std::runtime_error(State.Error);
  const side::KernelRecord *Record = State.Kernels.find(Original.name());
  if (!Record)
    throw std::runtime_error("the side module of " + Object->string() +
                             " does not hold it");
  if (Record->Status != side::KernelStatus::Variants)
    throw std::runtime_error(whyNoVariants(*Record));
  auto Image = State.Images.find(Record->Image);
  if (Image == State.Images.end()) {
    // A load made while a launch waits paused never returns: with the
    // process's best-effort work drained and held back
    // (LaunchRouter::holdForModuleLoad).
    auto Hold = Router.holdForModuleLoad();
    Image = State.Images
                .emplace(Record->Image, R.loadFile(State.Dir / Record->Image))
                .first;
  }
  Kernel K = Image->second.kernel(Original.name());
  std::span<const size_t> Want = Original.paramSizes(), Got = K.paramSizes();
  if (!std::equal(Want.begin(), Want.end(), Got.begin(), Got.end()))
    throw std::runtime_error("the side module's kernel takes other "
                             "parameters than the program's");
  return K;
}
