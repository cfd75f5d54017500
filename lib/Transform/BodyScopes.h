//===- BodyScopes.h - The nested { } scopes of a PTX function body --------===//
//
// Braces inside a function body open scopes (PTX ISA, "{}"): registers and
// labels declared in one are not seen outside it. Inline assembly relies on
// that. Each asm block of CUTLASS's and Triton's mbarrier waits declares its
// own predicate and its own `waitLoop:` label, so one function holds many
// labels of one name. The analyses that follow branches or registers must
// resolve a name from where it is used.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_TRANSFORM_BODYSCOPES_H
#define BATON_LIB_TRANSFORM_BODYSCOPES_H

#include "baton/PTX/AST.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace baton::detail {

/// A register as declared: its name and the scope that declares it, 0 for
/// the function's own scope (and for special registers).
using RegisterKey = std::pair<std::string_view, uint32_t>;

struct RegisterKeyHash {
  size_t operator()(const RegisterKey &K) const {
    return std::hash<std::string_view>()(K.first) * 31 + K.second;
  }
};

/// The scopes of one function body: which scope each statement is in, and
/// the registers and labels each scope declares.
class BodyScopes {
public:
  /// False if the braces do not balance, or if one scope defines a label
  /// twice (ptxas rejects both).
  bool build(const ptx::Module &M, std::span<const ptx::Statement> Body);

  /// Register \p Name as statement \p Statement sees it.
  RegisterKey registerKey(std::string_view Name, uint32_t Statement) const;

  /// The statement index of label \p Name as a branch at \p Statement sees
  /// it: the label of the innermost scope around the branch that defines
  /// one of that name; nullopt if none does.
  std::optional<uint32_t> label(std::string_view Name,
                                uint32_t Statement) const;

private:
  struct Scope {
    uint32_t Parent = 0;
    /// Declared registers: a name, and N of "<N>" (%r0..%r{N-1}) or 0.
    std::vector<std::pair<std::string_view, uint32_t>> Registers;
    std::unordered_map<std::string_view, uint32_t> Labels;
  };

  std::vector<uint32_t> ScopeOf;
  std::vector<Scope> Scopes;
};

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_BODYSCOPES_H
