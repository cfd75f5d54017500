//===- baton/Transform/BlockIndexUse.h - Block-index reads ------*- C++ -*-===//
//
// Which block-index registers a kernel reads, as both front ends record it
// (lib/Transform/VirtualBlock.h for PTX, lib/LLVM/VirtualBlock.h for IR), and
// what loading the original grid must provide for them.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TRANSFORM_BLOCKINDEXUSE_H
#define BATON_TRANSFORM_BLOCKINDEXUSE_H

#include <array>

namespace baton {

/// Which block-index registers a kernel and the functions it reaches read.
struct BlockIndexUse {
  std::array<bool, 3> CtaId{};
  std::array<bool, 3> NCtaId{};

  bool any() const {
    for (size_t I = 0; I < 3; ++I)
      if (CtaId[I] || NCtaId[I])
        return true;
    return false;
  }

  /// The original grid's dimensions that decoding a linear block into the
  /// coordinates read, or the %nctaid read, need: x for any coordinate, y
  /// for y or z.
  std::array<bool, 3> gridNeeded() const {
    bool AnyCtaId = CtaId[0] || CtaId[1] || CtaId[2];
    return {AnyCtaId || NCtaId[0], CtaId[1] || CtaId[2] || NCtaId[1],
            NCtaId[2]};
  }
};

} // namespace baton

#endif // BATON_TRANSFORM_BLOCKINDEXUSE_H
