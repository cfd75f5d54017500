//===- ModuleState.h - Kernels that use module-scope variables --*- C++ -*-===//
//
// A side module is a second copy of a library's device code, loaded as a
// module of its own. Its variants run against the side module's copy of
// every module-scope .global and .const variable, not the program's: a
// `__device__` counter or a `__constant__` table that the host fills with
// cudaMemcpyToSymbol would silently differ between the original and the
// variant. Such kernels get no variants (refusal "module-state") and keep
// running as the original.
//
// One exception: the toolkit's own read-only tables (`__cudart_*`, such as
// __cudart_i2opi_f of sinf's range reduction) carry their initializer and
// are never registered with, or written by, the host, so both copies hold
// the same bytes forever.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_SIDEMODULE_MODULESTATE_H
#define BATON_LIB_SIDEMODULE_MODULESTATE_H

#include "baton/PTX/AST.h"

#include <map>
#include <string>

namespace baton::side {

/// Refusal kind recorded in the index for these kernels.
inline constexpr const char *ModuleStateReason = "module-state";

/// The kernels of \p M that reach, directly or through the functions they
/// call or take the address of, a module-scope variable whose value the
/// program may change: kernel name -> one sentence naming the variable,
/// its state space and the line that uses it.
std::map<std::string, std::string> kernelsUsingModuleState(const ptx::Module &M);

} // namespace baton::side

#endif // BATON_LIB_SIDEMODULE_MODULESTATE_H
