//===- baton/Transform/BarrierPlan.h - The PTB loop's barrier id -*- C++ -*-===//
//
// A PTB worker ends every virtual block at a CTA barrier of its own. Both
// front ends walk the kernel body in their own IR and report each barrier
// use with a constant id here; the planner picks the loop's id and says
// whether early-exited threads must keep joining the body's full-CTA
// barriers (the drain protocol, see PtbVariant.cpp on either side).
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_BARRIERPLAN_H
#define BATON_TRANSFORM_BARRIERPLAN_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace baton {

/// Which barriers a question of divergence is about, on either side: may
/// threads of a CTA part at a point from which one is still reachable?
enum class BarrierTargets {
  /// Full-CTA syncs (bar.sync / barrier.sync without a thread count) and
  /// reductions (bar.red): does the PTB variant need the drain?
  AnyCtaBarrier,
  /// Reductions only: can a thread have left when the others vote in one?
  /// (The drain cannot vote for it: refusal barrier-reduction.)
  Reductions,
};

struct BarrierPlan {
  uint32_t Id = 0;    ///< barrier id of the worker loop
  bool Drain = false; ///< the body has full-CTA barriers without a count
};

class BarrierPlanner {
public:
  static constexpr uint32_t NumBarriers = 16; // PTX ISA: bar ids 0..15

  /// A barrier use in the kernel body with constant id \p Id. A full-CTA
  /// sync (no thread count) is joinable by drained threads, so its id stays
  /// free for the loop; any other use (a count, arrive) takes the id.
  void note(uint32_t Id, bool FullCtaSync) {
    if (FullCtaSync)
      Drain = true;
    else
      Taken |= 1u << Id;
  }

  /// The plan, or nullopt if the body takes every id (refusal
  /// NoFreeBarrier, with NoFreeBarrierMessage).
  std::optional<BarrierPlan> plan() const {
    for (uint32_t Id = 0; Id < NumBarriers; ++Id)
      if (!(Taken & (1u << Id)))
        return BarrierPlan{Id, Drain};
    return std::nullopt;
  }

  static constexpr std::string_view NoFreeBarrierMessage =
      "uses all 16 CTA barriers with thread counts; the worker loop needs "
      "one of its own";

private:
  uint32_t Taken = 0; ///< ids used with an explicit count or arrive
  bool Drain = false;
};

} // namespace baton

#endif // BATON_TRANSFORM_BARRIERPLAN_H
