//===- IsaLevel.h - PTX version and target the variants need ---*- C++ -*-===//
//
// A variant adds instructions that old PTX lacks, so a module whose
// `.version` or `.target` is below what its variants use gets them raised to
// exactly that level. From sm_20 on, raising adds to what the module may say
// and takes away one thing only: ptxas accepts module-scope .reg and .local
// declarations up to PTX 2.3 (they disable its ABI), so such modules get no
// PTB variant. The other features the PTX ISA removes go from 6.4 on and
// only for sm_70 targets (shfl and vote without .sync), above anything
// raised here. Below sm_20 it would change the original kernels' meaning
// (sm_1x flushes f32 subnormals by default, allows mad.f32 without rounding,
// may map f64 to f32), so such modules get no variants.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_ISALEVEL_H
#define BATON_TRANSFORM_ISALEVEL_H

#include "baton/PTX/AST.h"

namespace baton::detail {

struct IsaLevel {
  unsigned Major = 0, Minor = 0; ///< the PTX ISA version
  unsigned Sm = 0;               ///< the target, sm_<Sm>
};

/// The slice variant: its task parameter's `.ptr` attribute (PTX 2.2) and
/// cvta.to (PTX 2.0, sm_20).
inline constexpr IsaLevel SliceIsaLevel{2, 2, 20};
/// The PTB variant: barrier.sync and barrier.red (PTX 6.0, sm_30), and
/// %dynamic_smem_size (PTX 4.1).
inline constexpr IsaLevel PtbIsaLevel{6, 0, 30};

/// The module's `.version` and the sm number of its `.target`; 0 for what
/// it does not say (or says in a form not read here).
IsaLevel moduleIsaLevel(const ptx::Module &M);

/// True if the module says `.address_size 32`.
bool hasAddressSize32(const ptx::Module &M);

/// True if the module's `.target` is sm_10 to sm_13, whose meaning no target
/// the variants need keeps.
bool targetsSm1x(const ptx::Module &M);

/// Raises the module's `.version` and the sm number of its `.target` to at
/// least Need; other target options are kept, and a directive already at or
/// above Need is left as it was.
void raiseIsaLevel(ptx::Module &M, IsaLevel Need);

/// The first module-scope declaration in the .reg or .local state space, or
/// null. ptxas takes those only up to PTX 2.3 on sm_2x, so a module that
/// has one cannot be raised to PtbIsaLevel.
const ptx::VarDecl *moduleScopeRegisterOrLocal(const ptx::Module &M);

} // namespace baton::detail

#endif // BATON_TRANSFORM_ISALEVEL_H
