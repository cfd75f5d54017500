//===- Manifest.h - Launch manifests of the GPU tests and benchmarks -*- C++ -*-===//
//
// Reads launch manifests, one launchable kernel per line
//
//   MODULE KERNEL GX,GY,GZ BX,BY,BZ DYN_SMEM PARAM...
//
// (test/corpus/README.md has the format), and makes the bytes of each
// parameter: scalars by value, `in`/`inout` buffers deterministic
// pseudo-random small finite values, `out` buffers 0xAB poison, `zero`
// buffers zeros. No CUDA here: the two GPU harnesses (test/gpu on the
// runtime, test/variants-gpu on the bare driver) put these bytes on the
// device their own way, and the reader is unit-tested without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_MANIFEST_MANIFEST_H
#define BATON_TEST_MANIFEST_MANIFEST_H

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace baton::test {

struct ManifestParam {
  /// Out is poisoned before each run, Zero cleared (locks and counters a
  /// kernel expects cleared); both are compared after it, as InOut is.
  enum Kind { Scalar, In, Out, InOut, Zero } ParamKind = Scalar;
  std::string Type;   ///< i32 u32 i64 u64 f32 f64 | f16 bf16 u8 (buffers)
  std::string Value;  ///< scalars: the literal
  uint64_t Count = 0; ///< buffers: elements
  std::string Text;   ///< as written, for messages
};

struct ManifestExtent {
  uint32_t x = 1, y = 1, z = 1;
};

struct ManifestLine {
  std::string Module; ///< relative to the manifest's directory
  std::string Kernel;
  ManifestExtent Grid, Block;
  uint32_t SharedMemBytes = 0;
  std::vector<ManifestParam> Params;
  unsigned LineNumber = 0;
  std::string Where; ///< "manifest:line", for messages

  /// readManifest() rejects grids of 2^32 blocks or more.
  uint32_t blocks() const { return Grid.x * Grid.y * Grid.z; }
};

/// Parses \p Path; throws std::runtime_error naming "path:line" on bad
/// input. Blank lines and lines starting with '#' are skipped.
std::vector<ManifestLine> readManifest(const std::filesystem::path &Path);

/// Bytes per element of a buffer type; throws on an unknown type.
size_t elementSize(const std::string &Type);

/// A scalar parameter's value as the kernel takes it (little-endian).
std::vector<uint8_t> scalarBytes(const ManifestParam &Param);

/// What buffer parameter \p Index of a line holds before each run: the same
/// bytes on every call, platform and run.
std::vector<uint8_t> initialContents(const ManifestParam &Param, size_t Index);

/// "" if equal, else where and how \p Got differs from \p Want, reading them
/// as arrays of \p Param's element type.
std::string compareBuffers(const std::vector<uint8_t> &Got,
                           const std::vector<uint8_t> &Want,
                           const ManifestParam &Param);

} // namespace baton::test

#endif // BATON_TEST_MANIFEST_MANIFEST_H
