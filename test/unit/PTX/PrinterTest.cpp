//===- PrinterTest.cpp - Printing is a fixed point of parse-then-print ----===//
#include "baton/PTX/Parser.h"
#include "baton/PTX/Printer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace baton::ptx;

static std::string printed(const std::string &Source, const std::string &Name) {
  auto R = parseModule(Source, Name);
  EXPECT_FALSE(R.Error) << R.Error->str();
  return R.Mod ? printModule(*R.Mod) : "";
}

// print(parse(x)) must reparse to itself, for every PTX file of the corpus
// (nvcc, clang and Triton output).
TEST(Printer, CorpusRoundTripIsAFixedPoint) {
  namespace fs = std::filesystem;
  unsigned Files = 0;
  for (const auto &Entry : fs::recursive_directory_iterator(BATON_CORPUS_DIR)) {
    if (Entry.path().extension() != ".ptx")
      continue;
    std::ifstream In(Entry.path());
    std::stringstream SS;
    SS << In.rdbuf();
    std::string Once = printed(SS.str(), Entry.path().string());
    std::string Twice = printed(Once, Entry.path().string() + " (printed)");
    EXPECT_EQ(Once, Twice) << Entry.path();
    ++Files;
  }
  EXPECT_GT(Files, 0u) << "no corpus files under " << BATON_CORPUS_DIR;
}

TEST(Printer, CanonicalLayout) {
  std::string Out = printed(".version 8.0 .target sm_90a .address_size 64 "
                            ".entry k ( .param .u32 a ) { .reg .b32 %r<2>; "
                            "{ $L1: @%p1 bra $L1; } ret; }",
                            "x.ptx");
  EXPECT_EQ(Out, ".version 8.0\n.target sm_90a\n.address_size 64\n\n"
                 ".entry k(\n\t.param .u32 a\n)\n{\n\t.reg .b32 %r<2>;\n"
                 "\t{\n\t$L1:\n\t\t@%p1 bra $L1;\n\t}\n\tret;\n}\n");
}
