//===- baton/Transform/SpillingPragma.h - Pragma PTB drops -----*- C++ -*-===//
//
// `.pragma "enable_smem_spilling";` in a kernel's body lets ptxas spill
// registers to shared memory. ptxas rejects it in a kernel that uses dynamic
// shared memory, and every PTB variant does (its slots live at the end of
// the dynamic shared memory), so a PTB variant that kept it would stop the
// whole module from assembling. Both front ends leave it out of PTB
// variants: a hint about where registers spill, whose absence changes no
// result (ptxas then spills to local memory, as without the pragma).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_SPILLINGPRAGMA_H
#define BATON_TRANSFORM_SPILLINGPRAGMA_H

#include <optional>
#include <string>
#include <string_view>

namespace baton {

/// \p Ptx (a body's directive, or the text of an inline asm statement)
/// without the pragma: a `.pragma` statement that names it among other
/// strings keeps them (`.pragma "nounroll", "enable_smem_spilling";`
/// becomes `.pragma "nounroll";`), one that names only it goes. nullopt if
/// \p Ptx names it nowhere.
std::optional<std::string> withoutSpillingPragma(std::string_view Ptx);

} // namespace baton

#endif // BATON_TRANSFORM_SPILLINGPRAGMA_H
