//===- Variants.h - Build the slice and PTB variants of a kernel ----------===//
#ifndef BATON_LIB_TRANSFORM_VARIANTS_H
#define BATON_LIB_TRANSFORM_VARIANTS_H

#include "VirtualBlock.h"
#include "baton/Transform/BarrierPlan.h"
#include "baton/Transform/Names.h"
#include "baton/Transform/Refusal.h"

#include <optional>

namespace baton::detail {

struct VariantRequest {
  uint32_t Kernel;          ///< function index of the original kernel
  BlockIndexUse Use;        ///< which block-index registers it reads
  const CallGraph &CG;
  const GeneratedNames &Names;
  /// The variants' `.maxnreg`, replacing the original's if it has one.
  std::optional<uint32_t> MaxNReg;
};

/// The barrier plan of a PTB variant (BarrierPlan.h); a refusal if no id is
/// free.
std::optional<BarrierPlan> planBarriers(const ptx::Module &M,
                                        const ptx::Function &Kernel,
                                        Refusal &Why);

/// Each returns the function index of the new variant and the number of
/// registers it declares beyond the original's.
std::pair<uint32_t, uint32_t> buildSliceVariant(ptx::Module &M,
                                                const VariantRequest &R);
std::pair<uint32_t, uint32_t> buildPtbVariant(ptx::Module &M,
                                              const VariantRequest &R,
                                              const BarrierPlan &Plan);

/// Shared by both: the variant's header (original + task parameter, and
/// R.MaxNReg), and the prologue that loads the task pointer.
uint32_t addVariantFunction(ptx::Module &M, const VariantRequest &R,
                            VariantKind Kind);
void emitLoadTask(StatementBuilder &B, const GeneratedNames &Names);
/// Loads the original grid dimensions that decoding or %nctaid reads need.
void emitLoadGrid(StatementBuilder &B, const GeneratedNames &Names,
                  const BlockIndexUse &Use);
/// Decodes linear virtual block V into the coordinate registers Out (x, y, z)
/// for the components Use needs: x fastest, then y, then z. Uses the
/// predicate register `row`, and a label named after \p Site.
void emitDecode(StatementBuilder &B, const GeneratedNames &Names,
                const BlockIndexUse &Use, const std::string &V,
                const std::array<std::string, 3> &Out, std::string_view Site);

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_VARIANTS_H
