//===- Refusal.cpp - Why a kernel gets no variant -------------------------===//
#include "baton/Transform/Refusal.h"

#include <algorithm>
#include <iterator>

namespace baton {

std::string_view refusalKindName(RefusalKind Kind) {
  switch (Kind) {
  case RefusalKind::GridSync: return "grid-sync";
  case RefusalKind::Cluster: return "cluster";
  case RefusalKind::DynamicParallelism: return "dynamic-parallelism";
  case RefusalKind::HardwareId: return "hardware-id";
  case RefusalKind::ExternalCall: return "external-call";
  case RefusalKind::IndirectCall: return "indirect-call";
  case RefusalKind::BlockIdVector: return "block-id-vector";
  case RefusalKind::ExitInCallee: return "exit-in-callee";
  case RefusalKind::BarrierInCallee: return "barrier-in-callee";
  case RefusalKind::ExitOrBarrierInAsm: return "exit-or-barrier-in-asm";
  case RefusalKind::BarrierRegisterId: return "barrier-register-id";
  case RefusalKind::BarrierReduction: return "barrier-reduction";
  case RefusalKind::NoFreeBarrier: return "no-free-barrier";
  case RefusalKind::RegisterReallocation: return "register-reallocation";
  case RefusalKind::TensorMemoryPermit: return "tensor-memory-permit";
  case RefusalKind::SharedMemorySize:
    return "shared-memory-size";
  case RefusalKind::Recursion: return "recursion";
  case RefusalKind::DynamicStack: return "dynamic-stack";
  case RefusalKind::ParamSpace: return "param-space";
  case RefusalKind::AddressSize32: return "address-size-32";
  case RefusalKind::NameCollision: return "name-collision";
  case RefusalKind::ReturnsValue: return "returns-value";
  case RefusalKind::Sm1xTarget: return "sm1x-target";
  case RefusalKind::ModuleScopeState: return "module-scope-state";
  }
  return "unknown";
}

bool refusalIsPtbOnly(RefusalKind Kind) {
  switch (Kind) {
  case RefusalKind::ExitInCallee:
  case RefusalKind::BarrierInCallee:
  case RefusalKind::ExitOrBarrierInAsm:
  case RefusalKind::BarrierRegisterId:
  case RefusalKind::BarrierReduction:
  case RefusalKind::NoFreeBarrier:
  case RefusalKind::RegisterReallocation:
  case RefusalKind::TensorMemoryPermit:
  case RefusalKind::SharedMemorySize:
  case RefusalKind::Recursion:
  case RefusalKind::DynamicStack:
  case RefusalKind::ModuleScopeState:
    return true;
  default:
    return false;
  }
}

bool isRoundedSharedMemorySize(std::string_view Register) {
  return std::find(std::begin(RoundedSharedMemorySizeRegisters),
                   std::end(RoundedSharedMemorySizeRegisters),
                   Register) != std::end(RoundedSharedMemorySizeRegisters);
}

bool isKnownSafeExternal(std::string_view Name) {
  static constexpr std::string_view Safe[] = {
      "vprintf",       "malloc",        "free",
      "__assertfail",  "__assert_fail", "__cxa_pure_virtual",
      "__cxa_deleted_virtual"};
  return std::find(std::begin(Safe), std::end(Safe), Name) != std::end(Safe);
}

uint64_t kernelParamSpaceLimit(unsigned PtxMajor, unsigned PtxMinor,
                               unsigned Sm) {
  bool Large = Sm >= 70 && (PtxMajor > 8 || (PtxMajor == 8 && PtxMinor >= 1));
  return Large ? 32764 : 4096;
}

uint64_t paramBytesWithTask(uint64_t KernelBytes) {
  return (KernelBytes + 7) / 8 * 8 + 8;
}

std::string paramSpaceMessage(uint64_t KernelBytes, uint64_t Limit) {
  return "takes " + std::to_string(KernelBytes) +
         " bytes of parameters; with the variants' 8-byte task pointer "
         "after them that is " +
         std::to_string(paramBytesWithTask(KernelBytes)) + ", more than the " +
         std::to_string(Limit) +
         " bytes a kernel of its PTX version and target may take";
}

std::string linkedModuleCallMessage(std::string_view Symbol) {
  return "makes an indirect call in a module linked with others ('" +
         std::string(Symbol) +
         "' is declared here and defined elsewhere), so the call may reach "
         "code that cannot be checked";
}

std::string barrierReductionMessage(std::string_view Where) {
  // The drain keeps early-exited threads arriving at sync barriers; a
  // reduction's value would need their votes, which they no longer have.
  return "uses a reduction barrier (bar.red, from __syncthreads_count/and/or) "
         "that some threads of a CTA may reach after others have left (" +
         std::string(Where) +
         "); in a PTB worker the threads that left wait for the next block "
         "and cannot join it";
}

std::string recursionMessage(std::string_view Callee) {
  return "calls '" + std::string(Callee) +
         "', which is recursive; ptxas miscompiles recursive calls inside a "
         "loop that takes its block index from shared memory, as the PTB "
         "worker's loop does (wrong results and hangs on sm_90, CUDA 13.0)";
}

} // namespace baton
