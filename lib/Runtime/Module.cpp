//===- Module.cpp - Loaded modules and kernel/variant lookup ---------------===//
//
// Variants are found by name (task.h's suffixes are part of the ABI). A
// variant must take exactly the original's parameters plus the 8-byte task
// pointer; anything else means the module was not built by a compatible
// Baton compiler, and is rejected here rather than at the first launch.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Impl.h"

#include <algorithm>
#include <set>

using namespace baton;
using namespace baton::detail;

ModuleImpl::~ModuleImpl() {
  if (!Owned)
    return;
  const DriverApi &D = driver();
  if (!Runtime->contextAlive() ||
      D.cuCtxPushCurrent(Runtime->Context) != CUDA_SUCCESS)
    return;
  D.cuModuleUnload(Handle);
  CUcontext Popped;
  D.cuCtxPopCurrent(&Popped);
}

std::vector<CUfunction> baton::detail::moduleFunctions(CUmodule Handle) {
  const DriverApi &D = driver();
  unsigned Count = 0;
  check(D.cuModuleGetFunctionCount(&Count, Handle), "cuModuleGetFunctionCount");
  std::vector<CUfunction> Functions(Count);
  check(D.cuModuleEnumerateFunctions(Functions.data(), Count, Handle),
        "cuModuleEnumerateFunctions");
  return Functions;
}

/// The function named \p Name, or null if the module has none.
static CUfunction findFunction(CUmodule M, const std::string &Name) {
  CUfunction Fn = nullptr;
  CUresult R = driver().cuModuleGetFunction(&Fn, M, Name.c_str());
  if (R == CUDA_ERROR_NOT_FOUND)
    return nullptr;
  check(R, "cuModuleGetFunction", Name);
  return Fn;
}

/// Whether the module defines a global variable named \p Name.
static bool hasGlobal(CUmodule M, const std::string &Name) {
  CUdeviceptr Address = 0;
  size_t Bytes = 0;
  CUresult R = driver().cuModuleGetGlobal(&Address, &Bytes, M, Name.c_str());
  if (R == CUDA_ERROR_NOT_FOUND)
    return false;
  check(R, "cuModuleGetGlobal", Name);
  return true;
}

static std::vector<size_t> paramSizes(CUfunction Fn, const std::string &Name) {
  std::vector<size_t> Sizes;
  for (size_t I = 0;; ++I) {
    size_t Offset = 0, Size = 0;
    CUresult R = driver().cuFuncGetParamInfo(Fn, I, &Offset, &Size);
    if (R == CUDA_ERROR_INVALID_VALUE)
      return Sizes; // past the last parameter
    check(R, "cuFuncGetParamInfo", Name);
    Sizes.push_back(Size);
  }
}

static void checkVariantParams(CUfunction Variant, const std::string &Name,
                               const std::vector<size_t> &Original) {
  std::vector<size_t> Sizes = paramSizes(Variant, Name);
  bool Matches = Sizes.size() == Original.size() + 1 &&
                 std::equal(Original.begin(), Original.end(), Sizes.begin()) &&
                 Sizes.back() == sizeof(CUdeviceptr);
  if (!Matches)
    throw Error(ErrorKind::InvalidArgument,
                "variant '" + Name + "' does not take the original's " +
                    std::to_string(Original.size()) +
                    " parameters plus a baton_task pointer (it takes " +
                    std::to_string(Sizes.size()) +
                    "); was the module built by a compatible Baton compiler?");
}

Module::Module(std::shared_ptr<ModuleImpl> Impl) : Impl(std::move(Impl)) {}

CUmodule Module::handle() const { return Impl->Handle; }

Kernel Module::kernel(std::string_view Name) const {
  ScopedContext Scope(Impl->Runtime->Context);
  auto K = std::make_shared<KernelImpl>();
  K->Module = Impl;
  K->Name = std::string(Name);
  K->Original = findFunction(Impl->Handle, K->Name);
  if (!K->Original)
    throw Error(ErrorKind::NotFound, "module has no kernel '" + K->Name + "'");
  K->ParamSizes = paramSizes(K->Original, K->Name);
  K->Slice = findFunction(Impl->Handle, K->Name + BATON_SLICE_SUFFIX);
  K->Ptb = findFunction(Impl->Handle, K->Name + BATON_PTB_SUFFIX);
  if (K->Slice)
    checkVariantParams(K->Slice, K->Name + BATON_SLICE_SUFFIX, K->ParamSizes);
  if (K->Ptb) {
    checkVariantParams(K->Ptb, K->Name + BATON_PTB_SUFFIX, K->ParamSizes);
    K->PtbTakesFirstShares = hasGlobal(
        Impl->Handle, K->Name + BATON_PTB_SUFFIX BATON_ABI_MARKER_SUFFIX);
  }
  return Kernel(std::move(K));
}

std::vector<KernelInfo> Module::kernels() const {
  const DriverApi &D = driver();
  ScopedContext Scope(Impl->Runtime->Context);
  std::set<std::string> Names;
  for (CUfunction Fn : moduleFunctions(Impl->Handle)) {
    const char *Name = nullptr;
    check(D.cuFuncGetName(&Name, Fn), "cuFuncGetName");
    Names.insert(Name);
  }
  auto EndsWith = [](const std::string &S, std::string_view Suffix) {
    return S.size() > Suffix.size() &&
           S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
  };
  std::vector<KernelInfo> Result;
  for (const std::string &Name : Names) {
    if (EndsWith(Name, BATON_SLICE_SUFFIX) || EndsWith(Name, BATON_PTB_SUFFIX))
      continue;
    Result.push_back({Name, Names.count(Name + BATON_SLICE_SUFFIX) != 0,
                      Names.count(Name + BATON_PTB_SUFFIX) != 0});
  }
  return Result;
}

//===-- Kernel ------------------------------------------------------------===//

Kernel::Kernel(std::shared_ptr<const KernelImpl> Impl) : Impl(std::move(Impl)) {}

const std::string &Kernel::name() const { return Impl->Name; }
size_t Kernel::numParams() const { return Impl->ParamSizes.size(); }
std::span<const size_t> Kernel::paramSizes() const { return Impl->ParamSizes; }
bool Kernel::hasVariant(Mode M) const {
  return M == Mode::Original || (M == Mode::Slices ? Impl->Slice : Impl->Ptb);
}
bool Kernel::ptbTakesFirstShares() const { return Impl->PtbTakesFirstShares; }
CUfunction Kernel::function(Mode M) const { return Impl->function(M); }
KernelResources Kernel::resources() const { return Impl->resources(); }

CUfunction KernelImpl::function(Mode M) const {
  switch (M) {
  case Mode::Original:
    return Original;
  case Mode::Slices:
    if (!Slice)
      throw Error(ErrorKind::NotFound, "kernel '" + Name + "' has no " +
                                           BATON_SLICE_SUFFIX +
                                           " variant (refused by the compiler, "
                                           "or the module was not transformed)");
    return Slice;
  case Mode::Ptb:
    if (!Ptb)
      throw Error(ErrorKind::NotFound, "kernel '" + Name + "' has no " +
                                           BATON_PTB_SUFFIX +
                                           " variant (refused by the compiler, "
                                           "or the module was not transformed)");
    return Ptb;
  }
  throw Error(ErrorKind::InvalidArgument, "unknown launch mode");
}

void KernelImpl::allowSharedMemory(Mode M, uint32_t Bytes) const {
  CUfunction Fn = function(M);
  Facts[size_t(M)].allowSharedMemory(Bytes, [&](uint32_t Limit) {
    check(driver().cuFuncSetAttribute(
              Fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(Limit)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", Name);
  });
}

KernelResources KernelImpl::resources() const {
  return Facts[size_t(Mode::Original)].resources([&] {
    auto Read = [&](CUfunction_attribute A) {
      int Value = 0;
      check(driver().cuFuncGetAttribute(&Value, A, Original),
            "cuFuncGetAttribute", Name);
      return static_cast<uint32_t>(Value);
    };
    return KernelResources{Read(CU_FUNC_ATTRIBUTE_NUM_REGS),
                              Read(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)};
  });
}
