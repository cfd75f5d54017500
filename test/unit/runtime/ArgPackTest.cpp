//===- ArgPackTest.cpp - Owned kernel arguments ---------------------------===//

#include "ArgPack.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

using namespace baton::detail;

namespace {

TEST(ArgPack, CopiesValuesAndAppendsTheTask) {
  int32_t N = 1000003;
  double Alpha = -1.25;
  uint64_t Pointer = 0xDEADBEEF000ull;
  uint8_t Flag = 7;
  void *Args[] = {&N, &Alpha, &Pointer, &Flag};
  size_t Sizes[] = {sizeof(N), sizeof(Alpha), sizeof(Pointer), sizeof(Flag)};
  ArgPack Pack(Sizes, Args, CUdeviceptr(0x7000));
  // The caller's values may change or die after the launch call.
  N = 0;
  Alpha = 0;

  ASSERT_EQ(Pack.size(), 5u);
  void **P = Pack.kernelParams();
  EXPECT_EQ(*static_cast<int32_t *>(P[0]), 1000003);
  EXPECT_EQ(*static_cast<double *>(P[1]), -1.25);
  EXPECT_EQ(*static_cast<uint64_t *>(P[2]), 0xDEADBEEF000ull);
  EXPECT_EQ(*static_cast<uint8_t *>(P[3]), 7);
  EXPECT_EQ(*static_cast<CUdeviceptr *>(P[4]), CUdeviceptr(0x7000));
}

TEST(ArgPack, AlignsEveryValueForAnyType) {
  char Bytes[24] = {1, 2, 3};
  uint16_t Half = 0x3C00;
  void *Args[] = {Bytes, &Half};
  size_t Sizes[] = {sizeof(Bytes), sizeof(Half)};
  ArgPack Pack(Sizes, Args, 0);
  for (size_t I = 0; I < Pack.size(); ++I)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(Pack.kernelParams()[I]) %
                  alignof(std::max_align_t),
              0u);
  EXPECT_EQ(std::memcmp(Pack.kernelParams()[0], Bytes, sizeof(Bytes)), 0);
}

TEST(ArgPack, KernelWithoutParametersGetsOnlyTheTask) {
  ArgPack Pack({}, {}, CUdeviceptr(42));
  ASSERT_EQ(Pack.size(), 1u);
  EXPECT_EQ(*static_cast<CUdeviceptr *>(Pack.kernelParams()[0]), 42u);
}

TEST(ArgPack, PointersSurviveAMove) {
  int32_t V = 5;
  void *Args[] = {&V};
  size_t Sizes[] = {sizeof(V)};
  ArgPack A(Sizes, Args, 9);
  ArgPack B = std::move(A);
  EXPECT_EQ(*static_cast<int32_t *>(B.kernelParams()[0]), 5);
}

} // namespace
