//===- TaskSlotsTest.cpp - Which free task slot a launch gets -------------===//
//
// The pool's free list against stand-in slots (no GPU): a launch gets a slot
// whose task is fresh for its shape when there is one, and is told so;
// otherwise a slot holding nothing of use, and a fresh slot of another shape
// only when nothing else is free; a slot given back stale is never called
// fresh. Also: the finalize kernel that makes tasks fresh assembles.
//
//===----------------------------------------------------------------------===//

#include "RuntimeKernels.h"
#include "TaskPool.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

using namespace baton::detail;

namespace {

constexpr TaskShape MatmulShape{288, 1, 1, 288, 0, 1};
constexpr TaskShape SoftmaxShape{24576, 1, 1, 24576, 0, 8};

class FreeTaskSlotsTest : public ::testing::Test {
protected:
  std::array<TaskSlot, 4> Slots;
  FreeTaskSlots Free;
};

TEST_F(FreeTaskSlotsTest, EmptyListHasNoSlot) {
  bool Fresh = true;
  EXPECT_EQ(Free.take(MatmulShape, Fresh), nullptr);
  EXPECT_FALSE(Fresh);
}

TEST_F(FreeTaskSlotsTest, PrefersTheSlotFreshForTheShape) {
  Free.put(&Slots[0], std::nullopt);
  Free.put(&Slots[1], MatmulShape);
  Free.put(&Slots[2], SoftmaxShape);
  Free.put(&Slots[3], std::nullopt);
  bool Fresh = false;
  EXPECT_EQ(Free.take(SoftmaxShape, Fresh), &Slots[2]);
  EXPECT_TRUE(Fresh);
  EXPECT_EQ(Free.take(MatmulShape, Fresh), &Slots[1]);
  EXPECT_TRUE(Fresh);
  // No fresh matmul slot is left: a stale one, which must be written.
  TaskSlot *Stale = Free.take(MatmulShape, Fresh);
  EXPECT_TRUE(Stale == &Slots[0] || Stale == &Slots[3]);
  EXPECT_FALSE(Fresh);
}

TEST_F(FreeTaskSlotsTest, TakesAnotherShapesSlotOnlyWhenNothingElseIsFree) {
  Free.put(&Slots[0], SoftmaxShape);
  Free.put(&Slots[1], std::nullopt);
  bool Fresh = true;
  EXPECT_EQ(Free.take(MatmulShape, Fresh), &Slots[1]);
  EXPECT_FALSE(Fresh);
  EXPECT_EQ(Free.take(MatmulShape, Fresh), &Slots[0]);
  EXPECT_FALSE(Fresh) << "a softmax task is not fresh for a matmul";
  EXPECT_EQ(Free.take(MatmulShape, Fresh), nullptr);
}

TEST_F(FreeTaskSlotsTest, LaunchesWithoutAShapeNeverGetFreshSlotsAsFresh) {
  Free.put(&Slots[0], MatmulShape);
  bool Fresh = true;
  EXPECT_EQ(Free.take(std::nullopt, Fresh), &Slots[0]);
  EXPECT_FALSE(Fresh);
}

TEST_F(FreeTaskSlotsTest, AStaleReturnForgetsTheSlotsShape) {
  Free.put(&Slots[0], MatmulShape);
  bool Fresh = false;
  ASSERT_EQ(Free.take(MatmulShape, Fresh), &Slots[0]);
  Free.put(&Slots[0], std::nullopt); // e.g. its launch was paused
  EXPECT_EQ(Free.take(MatmulShape, Fresh), &Slots[0]);
  EXPECT_FALSE(Fresh);
}

TEST_F(FreeTaskSlotsTest, EveryFieldOfTheShapeCounts) {
  for (int Field = 0; Field < 6; ++Field) {
    TaskShape Other = MatmulShape;
    uint32_t *Fields[] = {&Other.GridX, &Other.GridY, &Other.GridZ,
                          &Other.End,   &Other.Flags, &Other.ClaimChunk};
    ++*Fields[Field];
    FreeTaskSlots List;
    List.put(&Slots[0], Other);
    bool Fresh = true;
    EXPECT_EQ(List.take(MatmulShape, Fresh), &Slots[0]);
    EXPECT_FALSE(Fresh) << "field " << Field;
  }
}

#ifdef BATON_PTXAS
// Both forms of the finalize kernel assemble; the dependent one must be
// built for Hopper, where griddepcontrol exists.
static void expectAssemblesForHopper(const char *Source, const char *Stem) {
  std::string Dir = ::testing::TempDir();
  std::string Ptx = Dir + "/" + Stem + ".ptx";
  std::ofstream(Ptx) << Source;
  std::string Command = std::string(BATON_PTXAS) + " -arch=sm_90 " + Ptx +
                        " -o " + Dir + "/" + Stem + ".cubin 2>&1";
  EXPECT_EQ(std::system(Command.c_str()), 0) << Command;
}

TEST(FinalizeKernelTest, AssemblesForHopper) {
  expectAssemblesForHopper(FinalizePtx, "baton_finalize");
  expectAssemblesForHopper(FinalizeDependentPtx, "baton_finalize_dependent");
}

TEST(FinalizeKernelTest, DependentFormWaitsBeforeItsFirstRead) {
  std::string_view Ptx = FinalizeDependentPtx;
  size_t Wait = Ptx.find("griddepcontrol.wait;");
  ASSERT_NE(Wait, std::string_view::npos);
  EXPECT_LT(Wait, Ptx.find("ld."));
  EXPECT_EQ(std::string_view(FinalizePtx).find("griddepcontrol"),
            std::string_view::npos);
}
#endif

} // namespace
