//===- LaunchArgs.h - A manifest line's arguments on the device -*- C++ -*-===//
//
// The buffers and scalars of one launch manifest line (test/manifest) as
// the runtime's tests launch them. Used by corpus_check and
// bench/runtime/variant_overhead.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_GPU_LAUNCHARGS_H
#define BATON_TEST_GPU_LAUNCHARGS_H

#include "GpuTest.h"
#include "Manifest.h"

#include <span>
#include <vector>

namespace baton::test {

/// The manifest's grid or block as the runtime takes it.
inline Dim3 dim3Of(const ManifestExtent &E) { return {E.x, E.y, E.z}; }

/// The arguments of one manifest line on the device: buffers allocated once,
/// reset() before every run restores inputs and poisons outputs.
class LaunchArgs {
public:
  LaunchArgs(const ManifestLine &Line, CUstream S);
  /// Restores every buffer to its initial contents.
  void reset(CUstream S);
  /// One pointer per parameter, for Runtime::launch.
  std::span<void *const> pointers() const { return Pointers; }
  /// Contents of the `out`, `inout` and `zero` buffers, in parameter order.
  std::vector<std::vector<uint8_t>> outputs(CUstream S) const;
  /// Which parameter each entry of outputs() belongs to.
  const std::vector<size_t> &outputParams() const { return OutputParams; }

private:
  std::vector<DeviceBuffer> Buffers;
  std::vector<std::vector<uint8_t>> Initial; ///< per buffer
  std::vector<std::vector<uint8_t>> Scalars; ///< per scalar parameter
  std::vector<void *> Pointers;
  std::vector<size_t> OutputBuffers, OutputParams;
};

} // namespace baton::test

#endif // BATON_TEST_GPU_LAUNCHARGS_H
