//===- ZstdDecoderTest.cpp - Our zstd decoder against libzstd -------------===//
//
// The reference encoder (libzstd, where the build found it) compresses
// inputs that exercise every part of the format: raw and RLE blocks, raw,
// RLE and Huffman literals in one and four streams, predefined, RLE, FSE and
// repeated sequence tables, repeat offsets, multi-block frames, checksums.
// Our decoder must give back the input exactly. Without libzstd only the
// hand-made cases run.
//
//===----------------------------------------------------------------------===//
#include "baton/Fatbin/Decompress.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#ifdef BATON_TEST_WITH_LIBZSTD
#include <zstd.h>
#endif

using namespace baton::fatbin;

namespace {

TEST(ZstdDecoder, RawAndRleBlocks) {
  // Frame header: single segment, 1-byte content size 7; a raw block "abc"
  // and a last RLE block of four 'x'.
  const uint8_t Frame[] = {0x28, 0xb5, 0x2f, 0xfd, 0x20, 7,   0x18, 0,
                           0,    'a',  'b',  'c',  0x23, 0,   0,    'x'};
  std::vector<uint8_t> Out(7);
  ASSERT_FALSE(decodeZstd(Frame, Out));
  EXPECT_EQ(std::string(Out.begin(), Out.end()), "abcxxxx");
  std::vector<uint8_t> Short(6);
  EXPECT_TRUE(decodeZstd(Frame, Short));
  const uint8_t Reserved[] = {0x28, 0xb5, 0x2f, 0xfd, 0x20, 7, 0x07, 0, 0};
  EXPECT_TRUE(decodeZstd(Reserved, Out));
}

#ifdef BATON_TEST_WITH_LIBZSTD

std::vector<uint8_t> compress(const std::vector<uint8_t> &In, int Level,
                              bool Checksum) {
  ZSTD_CCtx *C = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(C, ZSTD_c_compressionLevel, Level);
  ZSTD_CCtx_setParameter(C, ZSTD_c_checksumFlag, Checksum);
  std::vector<uint8_t> Out(ZSTD_compressBound(In.size()));
  size_t N = ZSTD_compress2(C, Out.data(), Out.size(), In.data(), In.size());
  ZSTD_freeCCtx(C);
  EXPECT_FALSE(ZSTD_isError(N));
  Out.resize(ZSTD_isError(N) ? 0 : N);
  return Out;
}

/// Inputs of different shapes: PTX-like text, random bytes, long runs, and
/// a mix large enough for several 128 KiB blocks.
std::vector<std::vector<uint8_t>> samples() {
  std::mt19937 Rng(42);
  std::vector<std::vector<uint8_t>> S;
  std::string Text;
  for (int I = 0; Text.size() < 300000; ++I)
    Text += "ld.global.f32 %f" + std::to_string(Rng() % 64) + ", [%rd" +
            std::to_string(Rng() % 32) + "+" + std::to_string(4 * I) +
            "];\n";
  for (size_t Size : {size_t(1), size_t(20), size_t(700), size_t(5000),
                      size_t(70000), Text.size()})
    S.emplace_back(Text.begin(), Text.begin() + Size);
  std::vector<uint8_t> Random(50000);
  for (uint8_t &B : Random)
    B = uint8_t(Rng());
  S.push_back(Random);
  S.push_back(std::vector<uint8_t>(200000, 'z'));
  std::vector<uint8_t> Mixed;
  for (int I = 0; I < 40; ++I) {
    Mixed.insert(Mixed.end(), Rng() % 3000, uint8_t(Rng()));
    Mixed.insert(Mixed.end(), Text.begin() + Rng() % 1000,
                 Text.begin() + 1000 + Rng() % 9000);
    for (unsigned J = Rng() % 500; J; --J)
      Mixed.push_back(uint8_t(Rng() % 4));
  }
  S.push_back(Mixed);
  return S;
}

TEST(ZstdDecoder, MatchesLibzstdAtEveryLevel) {
  for (const std::vector<uint8_t> &In : samples())
    for (int Level : {-5, 1, 3, 9, 19})
      for (bool Checksum : {false, true}) {
        std::vector<uint8_t> Frame = compress(In, Level, Checksum);
        std::vector<uint8_t> Out(In.size());
        auto Err = decodeZstd(Frame, Out);
        ASSERT_FALSE(Err) << *Err << " (size " << In.size() << ", level "
                          << Level << ")";
        ASSERT_TRUE(Out == In) << "size " << In.size() << ", level " << Level;
      }
}

TEST(ZstdDecoder, CorruptFramesNeverCrash) {
  std::vector<uint8_t> In = samples()[4];
  std::vector<uint8_t> Frame = compress(In, 19, false);
  std::mt19937 Rng(3);
  std::vector<uint8_t> Out(In.size());
  for (size_t Cut = 0; Cut < Frame.size(); Cut += 7)
    EXPECT_TRUE(decodeZstd(std::span<const uint8_t>(Frame).first(Cut), Out));
  for (int Round = 0; Round < 3000; ++Round) {
    std::vector<uint8_t> Copy = Frame;
    Copy[Rng() % Copy.size()] ^= uint8_t(1 << (Rng() % 8));
    (void)decodeZstd(Copy, Out);
  }
}

#endif // BATON_TEST_WITH_LIBZSTD

} // namespace
