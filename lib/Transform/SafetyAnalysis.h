//===- SafetyAnalysis.h - Decide which variants a kernel may have ---------===//
//
// Scans a kernel and every function it can reach for constructs whose
// meaning a variant could change, and returns one Refusal per kind found
// (the first occurrence, with its location). Refusals whose kind is
// PTB-only leave the slice variant allowed.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_TRANSFORM_SAFETYANALYSIS_H
#define BATON_LIB_TRANSFORM_SAFETYANALYSIS_H

#include "CallGraph.h"
#include "baton/Transform/Refusal.h"

#include <vector>

namespace baton::detail {

/// A refusal of \p Kind in \p F, located at \p S (at its guard, if it has
/// one) with S's text as the construct, or at F's header line if S is null.
Refusal refusalAt(const ptx::Module &M, RefusalKind Kind,
                  const ptx::Function &F, const ptx::Statement *S,
                  std::string Message);

std::vector<Refusal> checkSafety(const ptx::Module &M, const CallGraph &CG,
                                 uint32_t Kernel,
                                 std::span<const uint32_t> Reachable);

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_SAFETYANALYSIS_H
