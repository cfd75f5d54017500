//===- baton/Transform/Linkage.h - Whole programs ---------------*- C++ -*-===//
//
// A module compiled for separate linking (nvcc -rdc, clang -fgpu-rdc)
// declares symbols other modules define. ptxas can then assemble it only as
// relocatable code, and an indirect call in it may reach code the safety
// analysis never sees. Within one module, a function's name may stand for
// another function's body: a forward declaration's for its definition's, an
// alias's for its aliasee's.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_LINKAGE_H
#define BATON_TRANSFORM_LINKAGE_H

#include "baton/PTX/AST.h"

#include <optional>
#include <string_view>
#include <unordered_map>

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

/// The function index each function name of \p M stands for: its
/// definition where the module has one (over forward declarations), else
/// its declaration; for a name that `.alias` binds, the definition its chain
/// of aliases ends at (in any order of the directives), or the alias's own
/// declaration where the chain ends at no definition or loops.
std::unordered_map<std::string_view, uint32_t>
functionsByName(const ptx::Module &M);

} // namespace baton

#endif // BATON_TRANSFORM_LINKAGE_H
