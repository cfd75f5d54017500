//===- ZstdBits.h - Bit readers of the zstd format --------------*- C++ -*-===//
//
// zstd (RFC 8878) reads bits two ways: table descriptions forward from the
// first byte, least significant bit first (section 4.1.1), and entropy-coded
// streams backward from the last byte, whose highest set bit marks where the
// stream ends (section 4.1.2: "bitstreams are read in reverse"). Reads past
// the start of a backward stream give zeros and leave the reader
// overflowed, which callers check: the format defines streams that end
// exactly, so any other ending is corruption.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_FATBIN_ZSTDBITS_H
#define BATON_LIB_FATBIN_ZSTDBITS_H

#include <bit>
#include <cstdint>
#include <span>

namespace baton::fatbin::zstd {

class ForwardBits {
public:
  explicit ForwardBits(std::span<const uint8_t> Bytes) : Bytes(Bytes) {}

  /// The next N (at most 32) bits; false past the end of the input.
  bool read(unsigned N, uint32_t &Value) {
    if (Pos + N > Bytes.size() * 8)
      return false;
    Value = 0;
    for (unsigned I = 0; I < N; ++I, ++Pos)
      Value |= uint32_t((Bytes[Pos >> 3] >> (Pos & 7)) & 1) << I;
    return true;
  }

  /// Whole bytes touched so far.
  uint64_t bytesUsed() const { return (Pos + 7) / 8; }

private:
  std::span<const uint8_t> Bytes;
  uint64_t Pos = 0;
};

class BackwardBits {
public:
  /// False when the stream is empty or its last byte lacks the end mark.
  bool init(std::span<const uint8_t> In) {
    Bytes = In;
    if (In.empty() || In.back() == 0)
      return false;
    Remaining = int64_t(In.size() - 1) * 8 + std::bit_width(In.back()) - 1;
    return true;
  }

  /// The next N (at most 56) bits without consuming them.
  uint64_t peek(unsigned N) const {
    if (N == 0 || Remaining <= 0)
      return 0;
    int64_t Start = Remaining - int64_t(N);
    uint64_t From = Start < 0 ? 0 : uint64_t(Start);
    uint64_t Value = load(From, unsigned(uint64_t(Remaining) - From));
    return Start < 0 ? Value << unsigned(-Start) : Value;
  }

  void skip(unsigned N) { Remaining -= N; }

  uint64_t read(unsigned N) {
    uint64_t Value = peek(N);
    skip(N);
    return Value;
  }

  bool overflowed() const { return Remaining < 0; }
  bool finished() const { return Remaining == 0; }

private:
  /// Bits [From, From + N) of the buffer, N at most 56.
  uint64_t load(uint64_t From, unsigned N) const {
    uint64_t Byte = From >> 3, Word = 0;
    for (unsigned I = 0; I < 8 && Byte + I < Bytes.size(); ++I)
      Word |= uint64_t(Bytes[Byte + I]) << (8 * I);
    Word >>= From & 7;
    return N >= 64 ? Word : Word & ((uint64_t(1) << N) - 1);
  }

  std::span<const uint8_t> Bytes;
  int64_t Remaining = 0;
};

} // namespace baton::fatbin::zstd

#endif // BATON_LIB_FATBIN_ZSTDBITS_H
