//===- SafetyAnalysis.h - Decide which variants a kernel may have ---------===//
//
// The IR twin of lib/Transform/SafetyAnalysis.h: scans a kernel and every
// function it can reach for constructs whose meaning a variant could change,
// and returns one refusal per kind found (the first occurrence, with its
// location). Refusals whose kind is PTB-only leave the slice variant allowed.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_LLVM_SAFETYANALYSIS_H
#define BATON_LIB_LLVM_SAFETYANALYSIS_H

#include "CallGraph.h"
#include "baton/Transform/BarrierPlan.h"
#include "baton/Transform/Refusal.h"

#include "llvm/IR/DebugLoc.h"

#include <optional>
#include <vector>

namespace baton::ir {

/// A refusal and where it was found, for the diagnostic.
struct FoundRefusal {
  Refusal What;
  const llvm::Function *In = nullptr;
  llvm::DebugLoc Loc;
};

std::vector<FoundRefusal> checkSafety(llvm::Function &Kernel,
                                      const CallGraph &CG,
                                      llvm::ArrayRef<llvm::Function *> Reachable);

/// The refusal of \p Kind for \p F, at \p I (or F's own line).
FoundRefusal refusalAt(RefusalKind Kind, const llvm::Function &F,
                       const llvm::Instruction *I, std::string Message);

/// The barrier plan of a PTB variant (BarrierPlan.h), the drain decided
/// (BarrierDivergence.h); a refusal if no id is free, or if threads may part
/// before a reduction barrier.
std::optional<BarrierPlan> planBarriers(llvm::Function &Kernel,
                                        FoundRefusal &Why);

/// Every function in the module that is a kernel: ptx_kernel calling
/// convention (LLVM 22 upgrades the old nvvm.annotations "kernel" entries to
/// it when it reads a module).
bool isKernel(const llvm::Function &F);

} // namespace baton::ir

#endif // BATON_LIB_LLVM_SAFETYANALYSIS_H
