//===- Sha256.cpp - SHA-256 (FIPS 180-4) -----------------------------------===//
#include "baton/SideModule/Sha256.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace baton::side;

namespace {

// First 32 bits of the fractional parts of the cube roots of the first 64
// primes (FIPS 180-4, 4.2.2).
constexpr uint32_t RoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr uint32_t rotr(uint32_t X, unsigned N) {
  return (X >> N) | (X << (32 - N));
}

} // namespace

Sha256::Sha256()
    // First 32 bits of the fractional parts of the square roots of the
    // first 8 primes (FIPS 180-4, 5.3.3).
    : State{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19},
      Pending{} {}

void Sha256::compress(const uint8_t *Block) {
  uint32_t W[64];
  for (int I = 0; I < 16; ++I)
    W[I] = uint32_t(Block[4 * I]) << 24 | uint32_t(Block[4 * I + 1]) << 16 |
           uint32_t(Block[4 * I + 2]) << 8 | uint32_t(Block[4 * I + 3]);
  for (int I = 16; I < 64; ++I) {
    uint32_t S0 = rotr(W[I - 15], 7) ^ rotr(W[I - 15], 18) ^ (W[I - 15] >> 3);
    uint32_t S1 = rotr(W[I - 2], 17) ^ rotr(W[I - 2], 19) ^ (W[I - 2] >> 10);
    W[I] = W[I - 16] + S0 + W[I - 7] + S1;
  }
  uint32_t A = State[0], B = State[1], C = State[2], D = State[3],
           E = State[4], F = State[5], G = State[6], H = State[7];
  for (int I = 0; I < 64; ++I) {
    uint32_t S1 = rotr(E, 6) ^ rotr(E, 11) ^ rotr(E, 25);
    uint32_t Choice = (E & F) ^ (~E & G);
    uint32_t T1 = H + S1 + Choice + RoundConstants[I] + W[I];
    uint32_t S0 = rotr(A, 2) ^ rotr(A, 13) ^ rotr(A, 22);
    uint32_t Majority = (A & B) ^ (A & C) ^ (B & C);
    uint32_t T2 = S0 + Majority;
    H = G;
    G = F;
    F = E;
    E = D + T1;
    D = C;
    C = B;
    B = A;
    A = T1 + T2;
  }
  State[0] += A;
  State[1] += B;
  State[2] += C;
  State[3] += D;
  State[4] += E;
  State[5] += F;
  State[6] += G;
  State[7] += H;
}

void Sha256::update(std::span<const uint8_t> Bytes) {
  TotalBytes += Bytes.size();
  size_t I = 0;
  if (PendingSize) {
    size_t Take = std::min(Bytes.size(), Pending.size() - PendingSize);
    std::memcpy(Pending.data() + PendingSize, Bytes.data(), Take);
    PendingSize += Take;
    I = Take;
    if (PendingSize < Pending.size())
      return;
    compress(Pending.data());
    PendingSize = 0;
  }
  for (; I + 64 <= Bytes.size(); I += 64)
    compress(Bytes.data() + I);
  std::memcpy(Pending.data(), Bytes.data() + I, Bytes.size() - I);
  PendingSize = Bytes.size() - I;
}

std::array<uint8_t, 32> Sha256::finish() {
  // Padding (5.1.1): a 1 bit, zeros up to 56 bytes mod 64, the length in
  // bits as a big-endian 64-bit number.
  uint64_t Bits = TotalBytes * 8;
  uint8_t Pad[72] = {0x80};
  size_t PadSize = (PendingSize < 56 ? 56 : 120) - PendingSize;
  for (int I = 0; I < 8; ++I)
    Pad[PadSize + I] = uint8_t(Bits >> (56 - 8 * I));
  update({Pad, PadSize + 8});
  std::array<uint8_t, 32> Digest;
  for (int I = 0; I < 8; ++I)
    for (int J = 0; J < 4; ++J)
      Digest[4 * I + J] = uint8_t(State[I] >> (24 - 8 * J));
  return Digest;
}

std::string baton::side::toHex(std::span<const uint8_t> Digest) {
  static const char Digits[] = "0123456789abcdef";
  std::string Hex;
  for (uint8_t B : Digest) {
    Hex += Digits[B >> 4];
    Hex += Digits[B & 15];
  }
  return Hex;
}

std::string baton::side::sha256Hex(std::span<const uint8_t> Bytes) {
  Sha256 H;
  H.update(Bytes);
  return toHex(H.finish());
}

std::optional<std::string>
baton::side::sha256File(const std::filesystem::path &File,
                        std::string &Error) {
  std::FILE *In = std::fopen(File.c_str(), "rb");
  if (!In) {
    Error = File.string() + ": cannot open: " + std::strerror(errno);
    return std::nullopt;
  }
  Sha256 H;
  std::vector<uint8_t> Buffer(1 << 20);
  size_t Read;
  while ((Read = std::fread(Buffer.data(), 1, Buffer.size(), In)) > 0)
    H.update({Buffer.data(), Read});
  bool Failed = std::ferror(In);
  std::fclose(In);
  if (Failed) {
    Error = File.string() + ": read error";
    return std::nullopt;
  }
  return toHex(H.finish());
}
