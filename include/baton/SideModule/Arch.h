//===- baton/SideModule/Arch.h - GPU architectures of PTX and cubins -*- C++ -*-//
//
// What `.target` a PTX module names, and which architecture ptxas is asked
// to assemble it for so that it runs on a GPU: shared by baton-recompile
// (one cubin per --arch) and `baton-ptx --fit-registers` (one assembly to
// learn register counts).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SIDEMODULE_ARCH_H
#define BATON_SIDEMODULE_ARCH_H

#include "baton/PTX/AST.h"

#include <optional>
#include <string>
#include <string_view>

namespace baton::side {

/// sm_90 is {90, ""}; sm_90a is {90, "a"}.
struct Arch {
  unsigned Number = 0;
  std::string Suffix;
  std::string name() const { return "sm_" + std::to_string(Number) + Suffix; }
};

/// sm_NN, sm_NNa, sm_NNf (or compute_ with the same forms); nullopt else.
std::optional<Arch> parseArch(std::string_view S);

/// What ptxas is asked to build for \p Wanted from PTX of target \p Ptx, or
/// nothing if that PTX cannot run there: PTX of a newer architecture, or
/// PTX specific to another one (sm_90a code only runs on sm_90).
std::optional<Arch> assemblyArch(const Arch &Ptx, const Arch &Wanted);

/// The module's `.target` architecture, e.g. sm_90 of ".target sm_90".
std::optional<Arch> moduleTarget(const ptx::Module &M);

} // namespace baton::side

#endif // BATON_SIDEMODULE_ARCH_H
