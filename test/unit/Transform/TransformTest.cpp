//===- TransformTest.cpp - Variants leave originals alone -----------------===//
#include "baton/PTX/Parser.h"
#include "baton/PTX/Printer.h"
#include "baton/Transform/Transform.h"

#include <gtest/gtest.h>

using namespace baton;
using namespace baton::ptx;

namespace {

const std::string Header = ".version 8.0\n.target sm_90a\n.address_size 64\n";

std::unique_ptr<Module> parse(const std::string &S) {
  auto R = parseModule(S, "t.ptx");
  EXPECT_FALSE(R.Error) << R.Error->str();
  return std::move(R.Mod);
}

} // namespace

TEST(Transform, OriginalFunctionsPrintIdentically) {
  std::string Src = Header +
                    ".func (.param .b32 r) bid()\n{\n .reg .b32 %r<2>;\n"
                    " mov.u32 %r1, %ctaid.x;\n st.param.b32 [r], %r1;\n ret;\n}\n"
                    ".visible .entry a(.param .u64 p)\n{\n .reg .b32 %r<2>;\n"
                    " { .param .b32 r0;\n call.uni (r0), bid, ();\n"
                    " ld.param.b32 %r1, [r0]; }\n ret;\n}\n"
                    ".visible .entry b()\n{\n .reg .b32 %r<2>;\n"
                    " mov.u32 %r1, %smid;\n ret;\n}\n";
  auto Before = parse(Src);
  auto After = parse(Src);
  TransformResult R = transformModule(*After, {});
  std::string Printed = printModule(*After);
  // The original module is a prefix of the transformed one: nothing before
  // the appended functions changed.
  std::string Original = printModule(*Before);
  ASSERT_GE(Printed.size(), Original.size());
  EXPECT_EQ(Printed.substr(0, Original.size()), Original);
  ASSERT_EQ(R.Kernels.size(), 2u);
  EXPECT_TRUE(R.Kernels[0].SliceMade && R.Kernels[0].PtbMade);
  EXPECT_EQ(R.Kernels[0].VirtualCallees, std::vector<std::string>{"bid"});
  EXPECT_FALSE(R.Kernels[1].SliceMade || R.Kernels[1].PtbMade);
  ASSERT_EQ(R.Kernels[1].Refusals.size(), 1u);
  EXPECT_EQ(R.Kernels[1].Refusals[0].Kind, RefusalKind::HardwareId);
  EXPECT_EQ(R.Kernels[1].Refusals[0].Line, 22u);
  // The transformed module parses again.
  EXPECT_TRUE(parse(Printed));
}

TEST(Transform, FreshPrefixAvoidsNamesInTheInput) {
  std::vector<std::string_view> None = {"%r1", "baton"};
  std::vector<std::string_view> One = {"%r1", "%baton_v"};
  std::vector<std::string_view> Two = {"$baton_L1", "baton0_slot"};
  EXPECT_EQ(freshPrefix(None), "baton");
  EXPECT_EQ(freshPrefix(One), "baton0");
  EXPECT_EQ(freshPrefix(Two), "baton1");
}

TEST(Transform, SelectionAndVariantOptions) {
  auto M = parse(Header + ".entry keep()\n{\n ret;\n}\n"
                          ".entry skip()\n{\n ret;\n}\n");
  TransformOptions Opts;
  Opts.MakeSlice = false;
  Opts.SelectKernel = [](std::string_view K) { return K == "keep"; };
  TransformResult R = transformModule(*M, Opts);
  ASSERT_EQ(R.Kernels.size(), 2u);
  EXPECT_TRUE(R.Kernels[0].PtbMade);
  EXPECT_FALSE(R.Kernels[0].SliceMade);
  EXPECT_FALSE(R.Kernels[1].Selected);
  EXPECT_FALSE(R.Kernels[1].PtbMade);
  std::string Out = printModule(*M);
  EXPECT_NE(Out.find(".entry keep__baton_ptb("), std::string::npos);
  EXPECT_EQ(Out.find("skip__baton"), std::string::npos);
}

TEST(Transform, VariantsOfVariantsAreNotMade) {
  auto M = parse(Header + ".entry k()\n{\n ret;\n}\n");
  transformModule(*M, {});
  auto Again = parse(printModule(*M));
  TransformResult R = transformModule(*Again, {});
  ASSERT_EQ(R.Kernels.size(), 1u);
  EXPECT_EQ(R.Kernels[0].Refusals.size(), 1u);
  EXPECT_EQ(R.Kernels[0].Refusals[0].Kind, RefusalKind::NameCollision);
}

// Hostile sizes: 10^5 kernels, each calling a block-index reader, transform
// in linear time (the call graph and facts passes are per kernel).
TEST(Transform, HundredThousandKernelsInLinearTime) {
  std::string S = Header + ".func (.param .b32 r) bid()\n{\n .reg .b32 %r<2>;\n"
                           " mov.u32 %r1, %ctaid.x;\n st.param.b32 [r], %r1;\n"
                           " ret;\n}\n";
  for (int I = 0; I < 100000; ++I)
    S += ".entry k" + std::to_string(I) +
         "()\n{\n .reg .b32 %r<2>;\n { .param .b32 r0;\n"
         " call.uni (r0), bid, ();\n ld.param.b32 %r1, [r0]; }\n ret;\n}\n";
  auto M = parse(S);
  TransformResult R = transformModule(*M, {});
  ASSERT_EQ(R.Kernels.size(), 100000u);
  for (const KernelResult &K : R.Kernels)
    ASSERT_TRUE(K.SliceMade && K.PtbMade) << K.Name;
  EXPECT_TRUE(parse(printModule(*M)));
}

// Array sizes that claim gigabytes are facts, not allocations.
TEST(Transform, HugeDeclaredSizesAreOnlyCounted) {
  auto M = parse(Header + ".entry k()\n{\n .reg .b32 %r<4000000000>;\n"
                          " .shared .align 4 .b8 big[4000000000];\n"
                          " .local .b8 depot[4000000000];\n ret;\n}\n");
  TransformResult R = transformModule(*M, {});
  ASSERT_EQ(R.Kernels.size(), 1u);
  EXPECT_EQ(R.Kernels[0].Facts.StaticSharedBytes, 4000000000u);
  EXPECT_EQ(R.Kernels[0].Facts.LocalBytes, 4000000000u);
  EXPECT_EQ(R.Kernels[0].Facts.RegistersDeclared, 4000000000u);
}

// The PTB drain protocol (reduction barriers) is used exactly where threads
// of a CTA can part before a full-CTA barrier.
namespace {

/// The PTB variant of kernel `k` in Body, with its barriers as printed.
std::string ptbOf(const std::string &Body) {
  auto M = parse(Header + ".visible .entry k(.param .u64 p_out, .param .u32 "
                          "p_n)\n{\n .reg .pred %p<4>;\n .reg .b32 %r<12>;\n"
                          " .reg .b64 %rd<4>;\n .shared .align 4 .b8 s[1024];\n" +
                 Body + "}\n");
  TransformOptions Opts;
  Opts.MakeSlice = false;
  TransformResult R = transformModule(*M, Opts);
  EXPECT_TRUE(R.Kernels.at(0).PtbMade);
  std::string Out = printModule(*M);
  return Out.substr(Out.find(".entry k__baton_ptb("));
}

bool drains(const std::string &Body) {
  return ptbOf(Body).find("barrier.red.and.pred") != std::string::npos;
}

// A loop with a uniform trip count around a barrier, one final ret.
const std::string UniformLoop =
    " ld.param.u32 %r1, [p_n];\n mov.u32 %r2, 0;\n mov.u32 %r3, %tid.x;\n"
    "$L_loop:\n st.shared.u32 [s], %r3;\n bar.sync 0;\n"
    " add.s32 %r2, %r2, 1;\n setp.lt.u32 %p1, %r2, %r1;\n"
    " @%p1 bra $L_loop;\n";

} // namespace

TEST(PtbDrain, NotUsedWhereEveryPathToABarrierIsUniform) {
  std::string Ptb = ptbOf(UniformLoop + " ret;\n");
  EXPECT_EQ(Ptb.find("barrier.red"), std::string::npos) << Ptb;
  EXPECT_NE(Ptb.find("bar.sync 0;"), std::string::npos) << Ptb;
  // Block index, grid size and the kernel's parameters are uniform; so is
  // a guarded exit that depends on them only.
  EXPECT_FALSE(drains(" mov.u32 %r4, %ctaid.x;\n mov.u32 %r5, %nctaid.x;\n"
                      " add.s32 %r6, %r4, %r5;\n ld.param.u32 %r7, [p_n];\n"
                      " setp.ge.u32 %p2, %r6, %r7;\n @%p2 ret;\n" +
                      UniformLoop + " ret;\n"));
  // Threads may part after the last barrier.
  EXPECT_FALSE(drains(UniformLoop + " setp.ne.u32 %p2, %r3, 0;\n"
                                    " @%p2 ret;\n st.shared.u32 [s], %r2;\n"
                                    " ret;\n"));
}

// Inline assembly declares its own label in each { } block, one name many
// times in a body (CUTLASS's and Triton's mbarrier waits): each branch goes
// to the label of its own block, and the body is analysed, not given up on.
std::string loopInBlock(const std::string &Bound) {
  return " {\n .reg .b32 %c;\n mov.u32 %c, 0;\n$L_w:\n bar.sync 0;\n"
         " add.u32 %c, %c, 1;\n setp.lt.u32 %p1, %c, " +
         Bound + ";\n @%p1 bra $L_w;\n }\n";
}

TEST(PtbDrain, LabelsRepeatedInNestedScopesAreFollowed) {
  EXPECT_FALSE(drains(loopInBlock("4") + loopInBlock("8") + " ret;\n"));
  EXPECT_TRUE(drains(" mov.u32 %r1, %tid.x;\n" + loopInBlock("4") +
                     loopInBlock("%r1") + " ret;\n"));
}

TEST(PtbDrain, UsedWhereThreadsMayPartBeforeABarrier) {
  // An exit that depends on the thread index, through arithmetic.
  EXPECT_TRUE(drains(" mov.u32 %r4, %tid.x;\n add.s32 %r5, %r4, 7;\n"
                     " setp.gt.u32 %p2, %r5, 9;\n @%p2 ret;\n" +
                     UniformLoop + " ret;\n"));
  // A branch around the loop on a loaded value.
  EXPECT_TRUE(drains(" ld.param.u64 %rd1, [p_out];\n"
                     " ld.global.u32 %r4, [%rd1];\n setp.eq.u32 %p2, %r4, 0;\n"
                     " @%p2 bra $L_skip;\n" +
                     UniformLoop + "$L_skip:\n ret;\n"));
  // A loop bound read from shared memory.
  EXPECT_TRUE(drains(" ld.shared.u32 %r1, [s];\n mov.u32 %r2, 0;\n"
                     "$L_loop:\n bar.sync 0;\n add.s32 %r2, %r2, 1;\n"
                     " setp.lt.u32 %p1, %r2, %r1;\n @%p1 bra $L_loop;\n ret;\n"));
  // A barrier only some threads execute.
  EXPECT_TRUE(drains(" mov.u32 %r4, %laneid;\n setp.eq.u32 %p2, %r4, 0;\n"
                     " @%p2 bar.sync 0;\n ret;\n"));
  // A register is as varying as any of its definitions.
  EXPECT_TRUE(drains(" mov.u32 %r4, 0;\n mov.u32 %r4, %warpid;\n"
                     " setp.eq.u32 %p2, %r4, 0;\n @%p2 ret;\n bar.sync 0;\n"
                     " ret;\n"));
  // A value returned by a call is not a kernel parameter.
  auto M = parse(Header +
                 ".func (.param .b32 r) f()\n{\n .reg .b32 %r<2>;\n"
                 " mov.u32 %r1, %tid.x;\n st.param.b32 [r], %r1;\n ret;\n}\n"
                 ".entry k()\n{\n .reg .pred %p<2>;\n .reg .b32 %r<2>;\n"
                 " { .param .b32 r0;\n call.uni (r0), f, ();\n"
                 " ld.param.b32 %r1, [r0]; }\n setp.eq.u32 %p1, %r1, 0;\n"
                 " @%p1 ret;\n bar.sync 0;\n ret;\n}\n");
  transformModule(*M, {});
  EXPECT_NE(printModule(*M).find("barrier.red.and.pred"), std::string::npos);
}

// A kernel's parameter space, as ptxas counts it: each parameter at the
// alignment an .align before its type gives (one after .ptr is the
// pointee's), opaque .texref parameters none, sizes in any integer form. The
// variants append an 8-byte task pointer; a kernel left without room for it
// gets no variants (param-space), one with room both.
TEST(Transform, ParamSpaceCountsEachParameterAsPtxasDoes) {
  const std::string V81 = ".version 8.1\n.target sm_90\n.address_size 64\n";
  auto Kernel = [](const std::string &Name, const std::string &Params) {
    return ".visible .entry " + Name + "(" + Params +
           ")\n{\n .reg .b32 %r<2>;\n mov.u32 %r1, %ctaid.x;\n ret;\n}\n";
  };
  std::string Src =
      V81 +
      // 4, then 8 at 8 (not at 128), then 32736 at 16: 32752 + 8 fits.
      Kernel("pointee_align", ".param .u32 a, .param .u64 .ptr .global "
                              ".align 128 p, .param .align 4 .b8 b[32736]") +
      // 32752 + 8 fits, and a .texref takes nothing.
      Kernel("opaque", ".param .align 8 .b8 m[32752], .param .texref t") +
      // 0x7ff8 = 32760: with the pointer, 32768.
      Kernel("hex_over", ".param .align 8 .b8 m[0x7ff8]") +
      // 8, then a .b128 at 16: 32 bytes.
      Kernel("wide", ".param .u64 a, .param .b128 w");
  auto M = parse(Src);
  TransformResult R = transformModule(*M, {});
  ASSERT_EQ(R.Kernels.size(), 4u);
  for (size_t I : {0u, 1u, 3u}) {
    EXPECT_TRUE(R.Kernels[I].SliceMade && R.Kernels[I].PtbMade)
        << R.Kernels[I].Name;
    EXPECT_TRUE(R.Kernels[I].Refusals.empty()) << R.Kernels[I].Name;
  }
  const KernelResult &Over = R.Kernels[2];
  EXPECT_FALSE(Over.SliceMade || Over.PtbMade);
  ASSERT_EQ(Over.Refusals.size(), 1u);
  EXPECT_EQ(Over.Refusals[0].Kind, RefusalKind::ParamSpace);
  EXPECT_NE(Over.Refusals[0].Message.find("takes 32760 bytes"),
            std::string::npos)
      << Over.Refusals[0].Message;
}
