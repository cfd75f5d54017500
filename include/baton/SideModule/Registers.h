//===- baton/SideModule/Registers.h - Registers of assembled kernels -*- C++ -*-//
//
// A variant's register budget (Transform/RegisterBudget.h) depends on how
// many registers ptxas gives the original kernel, which only an assembly
// tells. assembledRegisters runs the toolkit's ptxas on a PTX file and reads
// the count of every function from the cubin (Fatbin/Cubin.h).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SIDEMODULE_REGISTERS_H
#define BATON_SIDEMODULE_REGISTERS_H

#include "baton/Transform/RegisterBudget.h"

#include <filesystem>
#include <optional>
#include <string>

namespace baton::side {

/// Assembles \p Ptx for \p Arch ("sm_90a") with the ptxas in \p CudaBin into
/// \p Cubin (removed afterwards) and adds each function's register count to
/// \p Out. Returns an error message if ptxas fails or the cubin is
/// unreadable.
std::optional<std::string>
assembledRegisters(const std::filesystem::path &Ptx, const std::string &Arch,
                   const std::filesystem::path &CudaBin,
                   const std::filesystem::path &Cubin, RegisterCounts &Out);

} // namespace baton::side

#endif // BATON_SIDEMODULE_REGISTERS_H
