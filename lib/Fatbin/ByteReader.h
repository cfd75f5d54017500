//===- ByteReader.h - Bounds-checked little-endian reads --------*- C++ -*-===//
//
// Every field of ELF and fatbin headers is read through these helpers, which
// fail instead of reading past the buffer, and assemble values byte by byte
// so that neither host endianness nor alignment matters.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_FATBIN_BYTEREADER_H
#define BATON_LIB_FATBIN_BYTEREADER_H

#include <cstdint>
#include <span>
#include <string>

namespace baton::fatbin {

/// True when [Off, Off+Len) lies inside a buffer of Size bytes (no overflow).
inline bool inBounds(uint64_t Size, uint64_t Off, uint64_t Len) {
  return Off <= Size && Len <= Size - Off;
}

template <typename T>
bool readLE(std::span<const uint8_t> B, uint64_t Off, T &Value) {
  if (!inBounds(B.size(), Off, sizeof(T)))
    return false;
  uint64_t V = 0;
  for (size_t I = 0; I < sizeof(T); ++I)
    V |= uint64_t(B[Off + I]) << (8 * I);
  Value = T(V);
  return true;
}

/// The NUL-terminated string at Off, stopping at the end of B.
inline std::string readCString(std::span<const uint8_t> B, uint64_t Off) {
  std::string S;
  for (uint64_t I = Off; I < B.size() && B[I] != 0; ++I)
    S.push_back(char(B[I]));
  return S;
}

inline std::string hex(uint64_t V) {
  static const char Digits[] = "0123456789abcdef";
  std::string S;
  do {
    S.insert(S.begin(), Digits[V & 15]);
    V >>= 4;
  } while (V);
  return "0x" + S;
}

} // namespace baton::fatbin

#endif // BATON_LIB_FATBIN_BYTEREADER_H
