//===- ParamSpace.h - A kernel's parameter space ---------------*- C++ -*-===//
//
// Each variant takes the kernel's parameters and the 8-byte task pointer
// after them; a kernel that fits ptxas's limit only without it gets no
// variants (baton::kernelParamSpaceLimit, Refusal.h).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_PARAMSPACE_H
#define BATON_TRANSFORM_PARAMSPACE_H

#include "baton/PTX/AST.h"

#include <cstdint>
#include <string_view>
#include <variant>

namespace baton::detail {

/// Bytes of parameter space \p F's parameters take, as ptxas counts them:
/// each at its alignment (an `.align N` before the type, else the type's
/// size), an array by its one dimension, opaque `.texref`, `.samplerref`
/// and `.surfref` parameters none. Otherwise the name of the first
/// parameter whose size cannot be read.
std::variant<uint64_t, std::string_view> paramBytes(const ptx::Module &M,
                                                    const ptx::Function &F);

/// The most parameter space a kernel of \p M may take, by its `.version`
/// and `.target`.
uint64_t paramSpaceLimit(const ptx::Module &M);

} // namespace baton::detail

#endif // BATON_TRANSFORM_PARAMSPACE_H
