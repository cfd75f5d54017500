//===- baton/Transform/Linkage.h - Whole programs ---------------*- C++ -*-===//
//
// A module compiled for separate linking (nvcc -rdc, clang -fgpu-rdc)
// declares symbols other modules define. ptxas can then assemble it only as
// relocatable code, and an indirect call in it may reach code the safety
// analysis never sees.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_LINKAGE_H
#define BATON_TRANSFORM_LINKAGE_H

#include "baton/PTX/AST.h"

#include <optional>
#include <string_view>

namespace baton {

/// The first symbol \p M declares and leaves to the code it is linked with:
/// an `.extern` or `.weak` function it does not define (other than those
/// ptxas supplies: vprintf, malloc, free, __assertfail), or an `.extern`
/// variable outside shared memory (where `.extern` only sizes dynamic shared
/// memory) that it does not define. nullopt for a whole program. Names
/// \p Ignore returns true for are passed over.
std::optional<std::string_view>
symbolDefinedElsewhere(const ptx::Module &M,
                       bool (*Ignore)(std::string_view) = nullptr);

} // namespace baton

#endif // BATON_TRANSFORM_LINKAGE_H
