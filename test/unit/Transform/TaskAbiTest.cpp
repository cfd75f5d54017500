//===- TaskAbiTest.cpp - Variants use exactly the task header's layout ----===//
//
// Each task field the emitted code touches is checked against offsetof() of
// the C struct both device and host code include, by the instruction that
// accesses it.
//
//===----------------------------------------------------------------------===//
#include "baton/PTX/Parser.h"
#include "baton/PTX/Printer.h"
#include "baton/Transform/Transform.h"
#include "baton/task.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

using namespace baton;
using namespace baton::ptx;

namespace {

const char *Kernel = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<3>;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ctaid.y;
	mov.u32 %r3, %ctaid.z;
	mov.u32 %r4, %nctaid.x;
	mov.u32 %r5, %nctaid.y;
	mov.u32 %r6, %nctaid.z;
	ret;
}
)";

/// Offset into the task of every task access in function F, by a key naming
/// the access ("ld.global.u32 %baton_end" -> 16).
std::map<std::string, int64_t> taskAccesses(const Module &M, const Function &F) {
  std::map<std::string, int64_t> Out;
  for (const Statement &S : M.body(F)) {
    if (S.Kind != StatementKind::Instruction)
      continue;
    auto Args = M.arguments(S);
    for (size_t I = 0; I < Args.size(); ++I) {
      if (Args[I].Kind != OperandKind::Address)
        continue;
      std::string Addr = printOperand(M, Args[I]);
      if (Addr.rfind("[%baton_task", 0) != 0)
        continue;
      int64_t Offset = 0;
      if (auto Plus = Addr.find('+'); Plus != std::string::npos)
        Offset = std::stoll(Addr.substr(Plus + 1));
      std::string Key(M.text(S.Text));
      if (I == 1 || (I == 0 && Args.size() == 2 && Key.rfind("ld", 0) == 0))
        Key += " " + printOperand(M, Args[0]);
      Out[Key] = Offset;
    }
  }
  return Out;
}

const Function &byName(const Module &M, std::string_view Name) {
  for (const Function &F : M.Functions)
    if (M.text(F.Name) == Name)
      return F;
  throw std::runtime_error("no function " + std::string(Name));
}

} // namespace

TEST(TaskAbi, SliceReadsTheHeaderLayout) {
  auto R = parseModule(Kernel, "k.ptx");
  ASSERT_FALSE(R.Error);
  transformModule(*R.Mod, {});
  auto A = taskAccesses(*R.Mod, byName(*R.Mod, "k__baton_slice"));
  EXPECT_EQ(A.at("ld.global.u32 %baton_v"), offsetof(baton_task, begin));
  EXPECT_EQ(A.at("ld.global.u32 %baton_end"), offsetof(baton_task, end));
  EXPECT_EQ(A.at("ld.global.u32 %baton_nctaid_x"), offsetof(baton_task, grid_x));
  EXPECT_EQ(A.at("ld.global.u32 %baton_nctaid_y"), offsetof(baton_task, grid_y));
  EXPECT_EQ(A.at("ld.global.u32 %baton_nctaid_z"), offsetof(baton_task, grid_z));
}

TEST(TaskAbi, PtbReadsAndUpdatesTheHeaderLayout) {
  auto R = parseModule(Kernel, "k.ptx");
  ASSERT_FALSE(R.Error);
  transformModule(*R.Mod, {});
  auto A = taskAccesses(*R.Mod, byName(*R.Mod, "k__baton_ptb"));
  EXPECT_EQ(A.at("ld.global.u32 %baton_end"), offsetof(baton_task, end));
  EXPECT_EQ(A.at("ld.volatile.global.u32 %baton_nv"),
            offsetof(baton_task, preempt));
  EXPECT_EQ(A.at("atom.global.add.u32 %baton_nv"), offsetof(baton_task, next));
  EXPECT_EQ(A.at("red.global.add.u32"),
            offsetof(baton_task, workers_preempted)); // the later of the two
  EXPECT_EQ(A.at("ld.global.u32 %baton_nctaid_z"), offsetof(baton_task, grid_z));
  EXPECT_EQ(A.at("ld.global.u32 %baton_flags"), offsetof(baton_task, flags));
  EXPECT_EQ(A.at("ld.global.u32 %baton_chunk"),
            offsetof(baton_task, claim_chunk));
  EXPECT_EQ(A.at("ld.global.u32 %baton_view"), offsetof(baton_task, next));
  EXPECT_EQ(A.at("ld.global.u32 %baton_share"),
            offsetof(baton_task, first_share));
  EXPECT_EQ(A.at("ld.global.u32 %baton_cur"), offsetof(baton_task, begin));
}

// The host's first shares cover [begin, begin + first_claimed) once, worker
// w holding begin + w + k * workers for k < share, as the device derives
// them from %ctaid.x and %nctaid.x (task.h).
TEST(TaskAbi, FirstSharesCoverTheClaimedBlocksOnce) {
  struct Case {
    uint32_t Begin, End, Workers, Chunk;
  };
  for (Case C : {Case{0, 4096, 1056, 9}, Case{0, 4096, 1056, 1},
                 Case{0, 100, 7, 64}, Case{5, 6, 3, 4}, Case{0, 16384, 1056, 9},
                 Case{0, 10, 10, 0}}) {
    uint32_t Claimed = 0;
    uint32_t Share =
        baton_first_shares(C.Begin, C.End, C.Workers, C.Chunk, 0, &Claimed);
    SCOPED_TRACE(std::to_string(C.End) + " blocks, " +
                 std::to_string(C.Workers) + " workers");
    ASSERT_GE(Share, 1u);
    EXPECT_LE(Share, std::max(C.Chunk, 1u));
    // The worker's own first claim would take ceil(left / workers).
    EXPECT_EQ(Share, std::min(std::max(C.Chunk, 1u),
                              (C.End - C.Begin + C.Workers - 1) / C.Workers));
    std::vector<int> Runs(C.End, 0);
    uint32_t SharesEnd = std::min(C.Begin + C.Workers * Share, C.End);
    for (uint32_t W = 0; W < C.Workers; ++W)
      for (uint32_t V = C.Begin + W; V < SharesEnd; V += C.Workers)
        ++Runs[V];
    for (uint32_t V = C.Begin; V < C.End; ++V)
      EXPECT_EQ(Runs[V], V < C.Begin + Claimed ? 1 : 0) << "block " << V;
  }
  uint32_t Claimed = 7;
  EXPECT_EQ(baton_first_shares(0, 0, 4, 8, 0, &Claimed), 0u);
  EXPECT_EQ(Claimed, 0u);
  EXPECT_EQ(baton_first_shares(0, 10, 0, 8, 0, &Claimed), 0u);
  // Shares whose last would end past BATON_MAX_VIRTUAL_BLOCKS: none.
  EXPECT_EQ(baton_first_shares(BATON_MAX_VIRTUAL_BLOCKS - 10,
                               BATON_MAX_VIRTUAL_BLOCKS - 1, 4, 64, 0,
                               &Claimed),
            0u);
  EXPECT_EQ(Claimed, 0u);
}

// A first share may hold more than a claim only where shares of that many
// cover the grid, within the host's limit; shares of that limit then cover
// every block once.
TEST(TaskAbi, FirstSharesBeyondTheClaimChunkOnlyCoverTheGrid) {
  // 2,304 blocks over 2,112 workers: shares of two cover the grid.
  EXPECT_EQ(baton_first_share_limit(0, 2304, 2112, 1, 2), 2u);
  EXPECT_EQ(baton_first_share_limit(0, 2304, 2112, 1, 1), 1u);
  EXPECT_EQ(baton_first_share_limit(0, 2304, 2112, 1, 0), 1u);
  EXPECT_EQ(baton_first_share_limit(0, 2304, 2112, 0, 0), 1u);
  // 27 blocks a worker, more than the limit allows: the claim chunk.
  EXPECT_EQ(baton_first_share_limit(0, 55296, 2112, 7, 16), 7u);
  // A chunk that covers the grid already needs no more.
  EXPECT_EQ(baton_first_share_limit(0, 100, 7, 64, 0), 64u);
  EXPECT_EQ(baton_first_share_limit(0, 10, 0, 3, 8), 3u);
  EXPECT_EQ(baton_first_share_limit(5, 4005, 1000, 2, 4), 4u); // from begin
  // Never more than the largest claim, whatever the host asks.
  EXPECT_EQ(baton_first_share_limit(0, 100000, 1000, 1, UINT32_MAX), 1u);
  EXPECT_EQ(baton_first_share_limit(0, 64000, 1000, 1, UINT32_MAX),
            BATON_MAX_CLAIM_CHUNK);
  uint32_t Claimed = 0;
  EXPECT_EQ(baton_first_shares(0, 2304, 2112, 1, 2, &Claimed), 2u);
  EXPECT_EQ(Claimed, 2304u);
}

TEST(TaskAbi, TaskParameterIsLastAndPointerSized) {
  auto R = parseModule(Kernel, "k.ptx");
  ASSERT_FALSE(R.Error);
  transformModule(*R.Mod, {});
  for (std::string_view Name : {"k__baton_slice", "k__baton_ptb"}) {
    const Function &F = byName(*R.Mod, Name);
    ASSERT_EQ(F.Params.size(), 2u);
    const Param &Task = F.Params.back();
    std::string Q;
    for (TextRef T : Task.Qualifiers)
      Q += std::string(R.Mod->text(T)) + " ";
    EXPECT_EQ(Q, ".param .u64 .ptr .global .align " +
                     std::to_string(BATON_TASK_ALIGN) + " ");
  }
}
