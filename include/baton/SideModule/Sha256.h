//===- baton/SideModule/Sha256.h - Content hash of recompiled inputs -*- C++ -*-//
//
// Side modules are cached under the SHA-256 of the library they were built
// from (FIPS 180-4), so that the same bytes find the same side module
// wherever they are installed, and a rebuilt library never finds a stale
// one. The digest is the one `sha256sum` prints.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_SIDEMODULE_SHA256_H
#define BATON_SIDEMODULE_SHA256_H

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

namespace baton::side {

/// Incremental SHA-256: update() with the input in pieces of any size, then
/// finish() once.
class Sha256 {
public:
  Sha256();
  void update(std::span<const uint8_t> Bytes);
  std::array<uint8_t, 32> finish();

private:
  void compress(const uint8_t *Block);

  std::array<uint32_t, 8> State;
  std::array<uint8_t, 64> Pending;
  size_t PendingSize = 0;
  uint64_t TotalBytes = 0;
};

/// Lower-case hexadecimal, as sha256sum prints it.
std::string toHex(std::span<const uint8_t> Digest);

/// The hex digest of \p Bytes.
std::string sha256Hex(std::span<const uint8_t> Bytes);

/// The hex digest of a file's contents, read in pieces; nullopt with \p Error
/// set if the file cannot be read.
std::optional<std::string> sha256File(const std::filesystem::path &File,
                                      std::string &Error);

} // namespace baton::side

#endif // BATON_SIDEMODULE_SHA256_H
