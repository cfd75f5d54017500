//===- HostileInputTest.cpp - Bad input gets an error, never a crash ------===//
#include "baton/PTX/Parser.h"

#include <gtest/gtest.h>

#include <random>

using namespace baton::ptx;

static const std::string Header =
    ".version 8.0\n.target sm_90a\n.address_size 64\n";

TEST(HostileInput, DeeplyNestedScopesAreAnErrorNotAStackOverflow) {
  std::string S = Header + ".entry k()\n{\n" + std::string(100000, '{');
  auto R = parseModule(S, "deep.ptx");
  ASSERT_TRUE(R.Error);
  EXPECT_NE(R.Error->Message.find("nested scopes"), std::string::npos);
}

TEST(HostileInput, DeeplyNestedOperandsAreAnError) {
  std::string S = Header + ".entry k()\n{\n mov.u32 %r1, " +
                  std::string(100000, '-') + "1;\n}\n";
  auto R = parseModule(S, "deep.ptx");
  ASSERT_TRUE(R.Error);
  EXPECT_NE(R.Error->Message.find("deeply nested"), std::string::npos);
}

TEST(HostileInput, EveryTruncationIsParsedOrRejected) {
  std::string S = Header +
                  ".visible .entry k(.param .u64 p)\n.maxntid 32, 1, 1\n{\n"
                  " .reg .b32 %r<3>;\n .shared .align 4 .b8 s[16];\n"
                  " @%p1 ld.global.v2.u32 {%r1, %r2}, [%rd1+8];\n"
                  " .loc 1 2 3\n bar.sync 0;\n ret;\n}\n";
  for (size_t N = 0; N <= S.size(); ++N) {
    auto R = parseModule(S.substr(0, N), "cut.ptx");
    EXPECT_TRUE(R.Mod || R.Error) << N;
  }
}

TEST(HostileInput, RandomBytesNeverCrash) {
  std::mt19937 Rng(1234);
  std::uniform_int_distribution<int> Byte(0, 255);
  for (int Round = 0; Round < 2000; ++Round) {
    std::string S = Header + ".entry k()\n{\n";
    for (int I = 0; I < 64; ++I)
      S.push_back(static_cast<char>(Byte(Rng)));
    auto R = parseModule(S, "random.ptx");
    EXPECT_TRUE(R.Mod || R.Error);
  }
}

TEST(HostileInput, ManyLabelsAndKernelsParseInLinearTime) {
  std::string S = Header + ".entry k()\n{\n";
  for (int I = 0; I < 1000000; ++I)
    S += "$L" + std::to_string(I) + ":\n";
  S += "ret;\n}\n";
  for (int I = 0; I < 100000; ++I)
    S += ".entry k" + std::to_string(I) + "()\n{\nret;\n}\n";
  auto R = parseModule(S, "many.ptx");
  ASSERT_FALSE(R.Error) << R.Error->str();
  EXPECT_EQ(R.Mod->Functions.size(), 100001u);
}

TEST(HostileInput, HugeNumbersAreTokensNotOverflow) {
  auto R = parseModule(Header + ".entry k()\n{\n .reg .b32 %r<99999999999999999999999>;"
                                "\n bar.sync 99999999999999999999999;\n ret;\n}\n",
                       "huge.ptx");
  EXPECT_FALSE(R.Error);
}
