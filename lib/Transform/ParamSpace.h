//===- ParamSpace.h - Room for the task pointer among the parameters -*- C++ -*-===//
//
// Each variant takes the kernel's parameters and one more, the 8-byte task
// pointer, after them. ptxas limits a kernel's parameter space: 32,764 bytes
// from PTX ISA 8.1 on sm_70 and later, 4,096 bytes before (what CUDA
// documented then; ptxas 13.0 allows 4,352). A kernel that fits only
// without the task pointer gets no variants: the module would not assemble.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_PARAMSPACE_H
#define BATON_TRANSFORM_PARAMSPACE_H

#include "baton/PTX/AST.h"

#include <cstdint>
#include <optional>

namespace baton::detail {

/// Bytes of parameter space \p F's parameters take, each at its alignment
/// (`.align N` before the type, else the type's size); nullopt if a
/// parameter's type or dimensions cannot be read.
std::optional<uint64_t> paramBytes(const ptx::Module &M,
                                   const ptx::Function &F);

/// The same with the task pointer appended: what a variant takes.
uint64_t paramBytesWithTask(uint64_t KernelBytes);

/// The most parameter space a kernel of \p M may take, by its `.version`
/// and `.target`.
uint64_t paramSpaceLimit(const ptx::Module &M);

} // namespace baton::detail

#endif // BATON_TRANSFORM_PARAMSPACE_H
