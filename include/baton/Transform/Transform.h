//===- baton/Transform/Transform.h - Add Baton variants to a module -*- C++ -*-//
//
// transformModule adds, for each selected kernel K of a PTX module,
// K__baton_slice and K__baton_ptb as DESIGN.md specifies, leaving every
// original function as it was. The steps, shared by name with the LLVM front
// end: find kernels -> check safety -> clone -> virtualise block index ->
// wrap in slice / PTB loop -> rewrite exits and barriers.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_TRANSFORM_H
#define BATON_TRANSFORM_TRANSFORM_H

#include "baton/PTX/AST.h"
#include "baton/PTX/Diagnostic.h"
#include "baton/Transform/KernelFacts.h"
#include "baton/Transform/Names.h"
#include "baton/Transform/Refusal.h"
#include "baton/Transform/RegisterBudget.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace baton {

struct TransformOptions {
  bool MakeSlice = true;
  bool MakePtb = true;
  /// Which kernels to transform; all when empty.
  std::function<bool(std::string_view)> SelectKernel;
  /// The `.maxnreg` to give a kernel's variants (registerBudget() in
  /// RegisterBudget.h), or nullopt for none; none at all when empty. A
  /// kernel with its own .maxnreg keeps the smaller of the two; one with
  /// .minnctapersm gets none (ptxas already holds it to that occupancy).
  RegisterBudgetFn RegisterBudget;
};

struct KernelResult {
  std::string Name;
  uint32_t Line = 0;
  bool Selected = true;
  bool SliceMade = false;
  bool PtbMade = false;
  std::vector<Refusal> Refusals;
  KernelFacts Facts;
  uint32_t RegistersAdded[2] = {0, 0}; ///< by the slice and the PTB variant
  std::optional<uint32_t> VariantMaxNReg; ///< the variants' .maxnreg, if any
  std::vector<std::string> VirtualCallees; ///< device functions cloned
};

struct TransformResult {
  std::vector<KernelResult> Kernels;
  /// Warnings for refused kernels, in "file:line:col: warning: ..." form.
  std::vector<ptx::Diagnostic> Diagnostics;
};

TransformResult transformModule(ptx::Module &M, const TransformOptions &Opts);

} // namespace baton

#endif // BATON_TRANSFORM_TRANSFORM_H
