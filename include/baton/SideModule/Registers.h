//===- baton/SideModule/Registers.h - Register budgets from an assembly -*- C++ -*-//
//
// A variant's register budget (Transform/RegisterBudget.h) depends on how
// many registers ptxas gives the original kernel, which only an assembly
// tells. fitRegisters runs the toolkit's ptxas on the original PTX, reads
// the count of every function from the cubin (Fatbin/Cubin.h), and turns
// them into the transform's budgets; baton-recompile and
// `baton-ptx --fit-registers` both call it.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SIDEMODULE_REGISTERS_H
#define BATON_SIDEMODULE_REGISTERS_H

#include "baton/PTX/AST.h"
#include "baton/SideModule/Arch.h"
#include "baton/Transform/RegisterBudget.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace baton::side {

/// Assembles \p Ptx for \p As with the ptxas in \p CudaBin (as relocatable
/// code if \p Relocatable: the module declares symbols other modules
/// define, baton::symbolDefinedElsewhere), through the files
/// \p ScratchStem.ptx and .cubin (removed afterwards), and sets \p Out to
/// the budgets that keep each kernel's blocks per SM on an SM of limits
/// \p L (relocatable: only for kernels that call nothing, since the cubin
/// leaves callees' registers to the linker). Returns an error message if a
/// file cannot be written, ptxas fails or the cubin is unreadable.
std::optional<std::string> fitRegisters(std::string_view Ptx, const Arch &As,
                                        const SmLimits &L, bool Relocatable,
                                        const std::filesystem::path &CudaBin,
                                        const std::filesystem::path &ScratchStem,
                                        RegisterBudgetFn &Out);

} // namespace baton::side

#endif // BATON_SIDEMODULE_REGISTERS_H
