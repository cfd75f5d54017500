//===- FuzzRegressionTest.cpp - Replay inputs the fuzzers once broke on ---===//
#include "../fuzz/FuzzChecks.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

TEST(FuzzRegressions, EverySavedInputPassesEveryCheck) {
  namespace fs = std::filesystem;
  unsigned Inputs = 0;
  for (const auto &E : fs::directory_iterator(BATON_FUZZ_REGRESSIONS_DIR)) {
    if (!E.is_regular_file() || E.path().filename() == "README.md")
      continue;
    std::ifstream In(E.path(), std::ios::binary);
    std::stringstream SS;
    SS << In.rdbuf();
    EXPECT_EQ(baton::fuzz::checkParse(SS.str()), "") << E.path();
    EXPECT_EQ(baton::fuzz::checkRoundTrip(SS.str()), "") << E.path();
    EXPECT_EQ(baton::fuzz::checkTransform(SS.str()), "") << E.path();
    ++Inputs;
  }
  EXPECT_GT(Inputs, 0u);
}
