//===- LaunchMathTest.cpp - Launch validation and sizing -------------------===//

#include "LaunchMath.h"

#include <gtest/gtest.h>

using namespace baton;
using namespace baton::detail;

namespace {

LaunchConfig config(Dim3 Grid, Dim3 Block, Mode M = Mode::Ptb) {
  LaunchConfig C;
  C.Grid = Grid;
  C.Block = Block;
  C.LaunchMode = M;
  return C;
}

/// The message of the InvalidArgument error \p Config raises, or "" if none.
std::string rejection(const LaunchConfig &Config) {
  try {
    validateLaunch(Config, "k");
  } catch (const Error &E) {
    EXPECT_EQ(E.kind(), ErrorKind::InvalidArgument);
    return E.what();
  }
  return {};
}

TEST(LaunchMath, CountsBlocksIn64Bits) {
  EXPECT_EQ(virtualBlockCount({3, 5, 7}), 105u);
  EXPECT_EQ(virtualBlockCount({0x7FFFFFFF, 65535, 2}),
            uint64_t(0x7FFFFFFF) * 65535 * 2);
}

TEST(LaunchMath, AcceptsOrdinaryLaunches) {
  EXPECT_EQ(rejection(config({3907, 1, 1}, {256, 1, 1})), "");
  EXPECT_EQ(rejection(config({7, 12, 18}, {16, 8, 4}, Mode::Slices)), "");
  EXPECT_EQ(rejection(config({1, 1, 1}, {1024, 1, 1})), "");
}

TEST(LaunchMath, RejectsEmptyGridsAndBlocks) {
  EXPECT_NE(rejection(config({0, 1, 1}, {32, 1, 1})).find("empty grid (0,1,1)"),
            std::string::npos);
  EXPECT_NE(rejection(config({4, 1, 1}, {32, 0, 1})).find("empty block"),
            std::string::npos);
}

TEST(LaunchMath, RejectsOversizedBlocks) {
  std::string Why = rejection(config({4, 1, 1}, {32, 32, 2}));
  EXPECT_NE(Why.find("2048 threads"), std::string::npos) << Why;
  EXPECT_NE(Why.find("kernel 'k'"), std::string::npos) << Why;
}

TEST(LaunchMath, RejectsGridsTheCursorCannotCover) {
  // 65536 * 65535 = 0xFFFF0000 >= BATON_MAX_VIRTUAL_BLOCKS.
  LaunchConfig Huge = config({65536, 65535, 1}, {32, 1, 1});
  std::string Why = rejection(Huge);
  EXPECT_NE(Why.find("BATON_MAX_VIRTUAL_BLOCKS"), std::string::npos) << Why;
  Huge.LaunchMode = Mode::Slices;
  EXPECT_NE(rejection(Huge), "");
  // The original kernel has no cursor: CUDA's own limits apply.
  Huge.LaunchMode = Mode::Original;
  EXPECT_EQ(rejection(Huge), "");
  // Just below the limit is fine.
  EXPECT_EQ(rejection(config({BATON_MAX_VIRTUAL_BLOCKS - 1, 1, 1},
                             {32, 1, 1})),
            "");
}

TEST(LaunchMath, RejectsYAndZBeyondCudaLimits) {
  EXPECT_NE(rejection(config({1, 65536, 1}, {32, 1, 1})), "");
  EXPECT_NE(rejection(config({1, 1, 65536}, {32, 1, 1})), "");
}

TEST(LaunchMath, CoResidentWidthIsOccupancyTimesSms) {
  EXPECT_EQ(coResidentWidth(8, 132, 1000000, "k"), 8u * 132);
  EXPECT_EQ(coResidentWidth(1, 132, 1000000, "k"), 132u);
}

TEST(LaunchMath, CoResidentWidthIsCappedByTheGrid) {
  EXPECT_EQ(coResidentWidth(16, 132, 100, "k"), 100u);
  EXPECT_EQ(coResidentWidth(16, 132, 1, "k"), 1u);
}

TEST(LaunchMath, CoResidentWidthRejectsKernelsThatDoNotFit) {
  try {
    coResidentWidth(0, 132, 1000, "big_smem_kernel");
    FAIL() << "expected an error";
  } catch (const Error &E) {
    EXPECT_EQ(E.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(E.what()).find("big_smem_kernel"),
              std::string::npos);
  }
}

TEST(LaunchMath, ClaimChunkIsAtLeastOneAndAtMostTheAbiLimit) {
  EXPECT_EQ(claimChunk(0, 1000), 1u);
  EXPECT_EQ(claimChunk(1, 1000), 1u);
  EXPECT_EQ(claimChunk(16, 1000), 16u);
  EXPECT_EQ(claimChunk(1000, 1000), BATON_MAX_CLAIM_CHUNK);
}

TEST(LaunchMath, ClaimChunkKeepsTheCursorFromWrapping) {
  // End workers each overshooting by one claim: End * (1 + chunk) must stay
  // representable, so grids near the limit fall back to one block a claim.
  uint32_t End = BATON_MAX_VIRTUAL_BLOCKS - 1;
  EXPECT_EQ(claimChunk(64, End), 1u);
  End = 1u << 28; // (2^32 - 1 - 2^28) / 2^28 = 14
  EXPECT_EQ(claimChunk(64, End), 14u);
  EXPECT_LE(uint64_t(End) * (1 + claimChunk(64, End)), uint64_t(UINT32_MAX));
}

TEST(LaunchMath, SliceWidthClipsTheLastSlice) {
  EXPECT_EQ(sliceWidth(0, 100, 32), 32u);
  EXPECT_EQ(sliceWidth(96, 100, 32), 4u);
  EXPECT_EQ(sliceWidth(99, 100, 1), 1u);
}

} // namespace
