//===- VirtualBlock.h - Virtualise the block index of a function body -----===//
//
// The steps shared by both variants and by device-function clones:
// virtualise block index (every %ctaid.* / %nctaid.* read becomes a read of a
// register holding the virtual block's coordinates / the original grid, and
// calls to functions that read the block index go to clones that receive
// them as extra parameters), and rewrite exits and barriers (PTB only: exits
// end the virtual block, full-CTA barriers join the early-exit protocol).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_TRANSFORM_VIRTUALBLOCK_H
#define BATON_LIB_TRANSFORM_VIRTUALBLOCK_H

#include "CallGraph.h"
#include "baton/Transform/BlockIndexUse.h"
#include "StatementBuilder.h"

#include <array>
#include <optional>
#include <string>
#include <unordered_map>

namespace baton::detail {

/// Sigil + Prefix + "_" + Stem, appended rather than concatenated from
/// temporaries, which GCC 12 flags with false -Wrestrict warnings.
inline std::string generatedName(std::string_view Sigil,
                                 std::string_view Prefix,
                                 std::string_view Stem) {
  std::string S(Sigil);
  S.append(Prefix).append("_").append(Stem);
  return S;
}

/// Names of the registers a variant adds, derived from one fresh prefix.
struct GeneratedNames {
  explicit GeneratedNames(std::string Prefix);
  std::string Prefix;                ///< e.g. "baton"
  std::array<std::string, 3> CtaId;  ///< %baton_ctaid_x, ...
  std::array<std::string, 3> NCtaId; ///< %baton_nctaid_x, ...
  std::string symbol(std::string_view Stem) const {
    return generatedName("", Prefix, Stem);
  }
  std::string reg(std::string_view Stem) const {
    return generatedName("%", Prefix, Stem);
  }
  std::string label(std::string_view Stem) const {
    return generatedName("$", Prefix, Stem);
  }
};

using baton::BlockIndexUse;
/// Which block-index registers the kernel and the functions it reaches
/// read.
BlockIndexUse blockIndexUse(const ptx::Module &M, const CallGraph &CG,
                            uint32_t Kernel, std::span<const uint32_t> Reachable);

/// How rewriteBody treats exits and barriers (the PTB variant sets these).
struct ExitAndBarrierRewrite {
  std::string ExitLabel;              ///< ret/exit become `bra ExitLabel`
  std::optional<uint32_t> DrainBarrier; ///< full-CTA barriers become
                                      ///< barrier.red.and on this id
  std::string FalsePredicate;         ///< a predicate register holding false
  std::string IgnoredPredicate;       ///< destination of converted barriers
  /// Further special registers to read from a register instead, e.g.
  /// %dynamic_smem_size, which a PTB launch enlarges.
  std::vector<std::pair<std::string, std::string>> RenamedRegisters;
};

/// Clones of device functions that read the block index, shared by all
/// kernels of a module: f becomes f__baton_vb with six more parameters.
class VirtualCallees {
public:
  VirtualCallees(ptx::Module &M, const CallGraph &CG, const GeneratedNames &N)
      : M(M), CG(CG), Names(N) {}
  /// Creates the clones of Reachable functions that need one (once each).
  /// Returns the names of the functions cloned.
  std::vector<std::string> cloneFor(std::span<const uint32_t> Reachable);
  /// Prototypes then definitions of all clones, to append to the module.
  std::vector<ptx::Item> items() const;

private:
  void buildClone(uint32_t Original, uint32_t Clone);

  ptx::Module &M;
  const CallGraph &CG;
  const GeneratedNames &Names;
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> CloneOf;
  std::vector<uint32_t> Order; ///< originals, in cloning order
};

/// The name of F's clone: F__baton_vb, numbered if the module has that name.
std::string virtualCalleeName(const ptx::Module &M, const CallGraph &CG,
                              const ptx::Function &F);

/// Appends F's body to B with block-index reads virtualised and calls to
/// block-index readers redirected; with Exits set, also rewrites exits and
/// barriers for the PTB loop, and leaves out the pragma that PTB variants
/// drop (baton/Transform/SpillingPragma.h).
void rewriteBody(StatementBuilder &B, const ptx::Function &F,
                 const CallGraph &CG, const GeneratedNames &Names,
                 const ExitAndBarrierRewrite *Exits);

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_VIRTUALBLOCK_H
