//===- Manifest.h - Corpus launch manifests and their buffers --*- C++ -*-===//
//
// Reads test/corpus/manifest.txt lines
//
//   MODULE KERNEL GX,GY,GZ BX,BY,BZ DYN_SMEM PARAM...
//
// (format in test/corpus/README.md) and makes the arguments of one launch:
// scalars by value, `in`/`inout` buffers filled with deterministic
// pseudo-random small finite values, `out` buffers poisoned with 0xAB bytes.
// Used by corpus_check and bench/runtime/variant_overhead.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_GPU_MANIFEST_H
#define BATON_TEST_GPU_MANIFEST_H

#include "GpuTest.h"

#include <filesystem>
#include <string>
#include <vector>

namespace baton::test {

struct ManifestParam {
  /// Out is poisoned before each run, Zero cleared (locks and counters a
  /// kernel expects cleared); both are compared after it, as InOut is.
  enum Kind { Scalar, In, Out, InOut, Zero } ParamKind = Scalar;
  std::string Type;  ///< i32 u32 i64 u64 f32 f64 | f16 bf16 u8 (buffers)
  std::string Value; ///< scalars: the literal
  uint64_t Count = 0; ///< buffers: elements
  std::string Text;  ///< as written, for messages
};

struct ManifestLine {
  std::string Module; ///< relative to the manifest's directory
  std::string Kernel;
  Dim3 Grid, Block;
  uint32_t SharedMemBytes = 0;
  std::vector<ManifestParam> Params;
  unsigned LineNumber = 0;
};

/// Parses \p Path; throws std::runtime_error naming the line on bad input.
std::vector<ManifestLine> readManifest(const std::filesystem::path &Path);

/// Bytes per element of a buffer type; throws on an unknown type.
size_t elementSize(const std::string &Type);

/// The arguments of one manifest line on the device: buffers allocated once,
/// reset() before every run restores inputs and poisons outputs.
class LaunchArgs {
public:
  LaunchArgs(const ManifestLine &Line, CUstream S);
  /// Restores every buffer to its initial contents.
  void reset(CUstream S);
  /// One pointer per parameter, for Runtime::launch.
  std::span<void *const> pointers() const { return Pointers; }
  /// Contents of the `out` and `inout` buffers, in parameter order.
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

/// "" if equal, else where and how \p Got differs from \p Want, reading them
/// as arrays of \p Param's element type.
std::string compareBuffers(const std::vector<uint8_t> &Got,
                           const std::vector<uint8_t> &Want,
                           const ManifestParam &Param);

} // namespace baton::test

#endif // BATON_TEST_GPU_MANIFEST_H
