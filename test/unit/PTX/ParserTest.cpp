//===- ParserTest.cpp - PTX text to AST -----------------------------------===//
#include "baton/PTX/Parser.h"
#include "baton/PTX/Printer.h"

#include <gtest/gtest.h>

using namespace baton::ptx;

static std::unique_ptr<Module> parseOk(std::string Source) {
  auto R = parseModule(std::move(Source), "test.ptx");
  EXPECT_FALSE(R.Error) << R.Error->str();
  return std::move(R.Mod);
}

static std::string parseError(std::string Source) {
  auto R = parseModule(std::move(Source), "bad.ptx");
  EXPECT_TRUE(R.Error.has_value());
  return R.Error ? R.Error->str() : "";
}

static const char *Header = ".version 8.0\n.target sm_90a\n.address_size 64\n";

TEST(Parser, KernelWithParamsDirectivesAndBody) {
  auto M = parseOk(std::string(Header) +
                   ".visible .entry k(\n .param .u64 .ptr .global .align 8 p,"
                   " .param .align 16 .b8 s[32]\n)\n.maxntid 128, 1, 1\n"
                   ".minnctapersm 2\n{\n .reg .b32 %r<4>;\n"
                   " mov.u32 %r1, %ctaid.x;\n ret;\n}\n");
  ASSERT_EQ(M->Functions.size(), 1u);
  const Function &F = M->Functions[0];
  EXPECT_TRUE(F.IsEntry);
  EXPECT_EQ(M->text(F.Name), "k");
  ASSERT_EQ(F.Params.size(), 2u);
  EXPECT_EQ(M->text(F.Params[1].Suffix), "[32]");
  ASSERT_EQ(F.Directives.size(), 2u);
  EXPECT_EQ(M->text(F.Directives[0].Name), ".maxntid");
  EXPECT_EQ(F.Directives[0].Values.size(), 3u);
  auto Body = M->body(F);
  ASSERT_EQ(Body.size(), 3u);
  EXPECT_EQ(Body[0].Kind, StatementKind::Decl);
  EXPECT_EQ(Body[1].Kind, StatementKind::Instruction);
  EXPECT_EQ(M->text(Body[1].Text), "mov.u32");
  EXPECT_EQ(M->text(M->arguments(Body[1])[1].Text), "%ctaid.x");
}

TEST(Parser, GuardsVectorsAddressesAndCalls) {
  auto M = parseOk(std::string(Header) +
                   ".func (.param .b32 r) f(.param .b32 a)\n{\n ret;\n}\n"
                   ".entry k()\n{\n .reg .pred %p<2>;\n .reg .b32 %r<9>;\n"
                   " .reg .b64 %rd<3>;\n"
                   " @!%p1 ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+-16];\n"
                   " shfl.sync.bfly.b32 %r5|%p1, %r6, 1, 31, -1;\n"
                   " { .param .b32 a0; .param .b32 r0;\n"
                   "   call.uni (r0), f, (a0); }\n"
                   " ret;\n}\n");
  const Function &K = M->Functions[1];
  auto Body = M->body(K);
  const Statement &Ld = Body[3];
  ASSERT_EQ(Ld.Kind, StatementKind::Instruction);
  EXPECT_TRUE(Ld.Flags & StatementHasGuard);
  auto Ops = M->operands(Ld);
  ASSERT_EQ(Ops.size(), 3u);
  EXPECT_EQ(Ops[0].Kind, OperandKind::Guard);
  EXPECT_TRUE(Ops[0].Flags & OperandNegated);
  EXPECT_EQ(Ops[1].Kind, OperandKind::Vector);
  EXPECT_EQ(Ops[1].NumChildren, 4);
  EXPECT_EQ(Ops[2].Kind, OperandKind::Address);
  EXPECT_EQ(printOperand(*M, Ops[2]), "[%rd1+-16]");
  EXPECT_EQ(printStatement(*M, Body[4]),
            "shfl.sync.bfly.b32 %r5|%p1, %r6, 1, 31, -1;");
  EXPECT_EQ(Body[5].Kind, StatementKind::BlockBegin);
  EXPECT_EQ(printStatement(*M, Body[8]), "call.uni (r0), f, (a0);");
}

TEST(Parser, ArrayElementOperands) {
  auto M = parseOk(std::string(Header) +
                   ".entry k()\n{\n .reg .b32 %r<3>;\n"
                   " .shared .b8 bytes[64];\n"
                   " ld.shared.u8 %r1, bytes[%r2+1];\n ret;\n}\n");
  auto Body = M->body(M->Functions[0]);
  auto Ops = M->arguments(Body[2]);
  ASSERT_EQ(Ops.size(), 2u);
  ASSERT_EQ(Ops[1].Kind, OperandKind::Element);
  auto Children = M->children(Ops[1]);
  ASSERT_EQ(Children.size(), 2u);
  EXPECT_EQ(Children[0].Kind, OperandKind::Symbol);
  EXPECT_EQ(M->text(Children[0].Text), "bytes");
  EXPECT_EQ(Children[1].Kind, OperandKind::Binary);
  EXPECT_EQ(printOperand(*M, Ops[1]), "bytes[%r2+1]");
}

TEST(Parser, DeclarationsEndAtTheNextItemButNotAnywhere) {
  // nvopencc's form: no ';', the next item ends the declaration.
  auto M = parseOk(std::string(Header) +
                   ".func (.param .b32 r) f(.param .b32 a)\n"
                   ".pragma \"nounroll\";\n"
                   ".entry k()\n{\n ret;\n}\n");
  ASSERT_EQ(M->Functions.size(), 2u);
  EXPECT_FALSE(M->Functions[0].HasBody);
  EXPECT_TRUE(M->Functions[0].Directives.empty()); // the pragma is the module's
  EXPECT_NE(printModule(*M).find(";\n\n.pragma \"nounroll\";\n"),
            std::string::npos);
  // Anything else after a header is still an error.
  EXPECT_NE(parseError(std::string(Header) +
                       ".func (.param .b32 r) f(.param .b32 a)\n mov.u32\n")
                .find("expected '{' or ';' after the function header"),
            std::string::npos);
}

TEST(Parser, ModuleVariablesWithInitializers) {
  auto M = parseOk(std::string(Header) +
                   ".global .align 4 .b8 tab[4] = {1, 2, 3, 4};\n"
                   ".extern .shared .align 16 .b8 smem[];\n"
                   ".global .align 8 .u64 ptrs[1] = {generic(tab)+4};\n"
                   ".const .f32 c = 0f3F800000;\n");
  ASSERT_EQ(M->Decls.size(), 4u);
  EXPECT_EQ(M->text(M->Decls[1].Linkage[0]), ".extern");
  EXPECT_EQ(M->text(M->Decls[1].Names[0].Suffix), "[]");
  ASSERT_TRUE(M->Decls[2].Names[0].Init.has_value());
  EXPECT_EQ(printOperand(*M, M->Operands[*M->Decls[2].Names[0].Init]),
            "{generic(tab)+4}");
}

// The byte-mask form LLVM writes for a pointer inside a packed aggregate,
// and the field list of an OpenCL-style sampler.
TEST(Parser, MaskAndFieldInitializers) {
  auto M = parseOk(".version 9.0\n.target sm_90, texmode_independent\n"
                   ".address_size 64\n"
                   ".global .align 4 .u32 gv[4];\n"
                   ".global .align 1 .u8 gm[2] = {0xFF(generic(gv)), "
                   "0xFF00(gv+8)};\n"
                   ".global .samplerref s = { addr_mode_0 = clamp_to_edge, "
                   "filter_mode = linear };\n");
  ASSERT_EQ(M->Decls.size(), 3u);
  EXPECT_EQ(printOperand(*M, M->Operands[*M->Decls[1].Names[0].Init]),
            "{0xFF(generic(gv)), 0xFF00(gv+8)}");
  EXPECT_EQ(printOperand(*M, M->Operands[*M->Decls[2].Names[0].Init]),
            "{addr_mode_0 = clamp_to_edge, filter_mode = linear}");
  // A field is a name: `1 = x` is no operand.
  EXPECT_EQ(parseError(std::string(Header) + ".global .u32 g[1] = {1 = 2};\n"),
            "bad.ptx:4:24: error: expected ',' or '}', found '='");
}

TEST(Parser, AliasesAreRecorded) {
  auto M = parseOk(std::string(Header) +
                   ".func f()\n{\n ret;\n}\n.func g();\n.alias g, f;\n");
  ASSERT_EQ(M->Aliases.size(), 1u);
  EXPECT_EQ(M->text(M->Aliases[0].Name), "g");
  EXPECT_EQ(M->text(M->Aliases[0].Aliasee), "f");
  EXPECT_EQ(M->Items.back().Kind, ItemKind::Directive);
  EXPECT_EQ(M->text(M->Items.back().Text), ".alias g, f;");
  EXPECT_EQ(parseError(std::string(Header) + ".alias g f;\n"),
            "bad.ptx:4:10: error: expected ',' after the alias, found 'f'");
}

// cpp leaves `# N "file"` markers in preprocessed PTX, and ptxas takes
// them anywhere; nothing else may start with '#'.
TEST(Parser, PreprocessorLineMarkersAreSkipped) {
  auto M = parseOk("# 1 \"k.cu\"\n.version 8.0\n#line 3 \"b.cu\"\n"
                   ".target sm_90a\n.address_size 64\n.entry k()\n{\n"
                   "# 7 \"c.cu\" 1 3\r\n ret; # 9 \"c.cu\"\n}\n");
  ASSERT_EQ(M->Functions.size(), 1u);
  EXPECT_EQ(M->body(M->Functions[0]).size(), 1u);
  EXPECT_EQ(printModule(*M).find('#'), std::string::npos);
  // ptxas knows no escapes in the name, and wants the line's end.
  for (const char *Bad : {"# 1\n", "#pragma once\n", "# 1 \"a\" x\n",
                          "#line\n", "# 1 \"a\\\"b.cu\"\n", "# 1 \"a\"\v\n",
                          "# 1 \"a\""})
    EXPECT_EQ(parseError(std::string(Header) + Bad),
              "bad.ptx:4:1: error: expected a directive, function or variable "
              "declaration, found invalid token '#'")
        << Bad;
}

// cuModuleLoadData reads a NUL-terminated string, and programs that hand
// PTX to it save the terminator; a NUL anywhere else is an error that names
// the byte.
TEST(Parser, TrailingNulsEndTheInput) {
  std::string Module = std::string(Header) + ".entry k()\n{\n ret;\n}\n";
  EXPECT_EQ(parseOk(Module + std::string(2, '\0'))->Functions.size(), 1u);
  EXPECT_EQ(parseError(std::string(Header) + std::string(1, '\0') + Module),
            "bad.ptx:4:1: error: expected a directive, function or variable "
            "declaration, found invalid token '\\x00'");
}

TEST(Parser, ConstantExpressionsParseAndEvaluate) {
  const std::pair<const char *, std::optional<uint64_t>> Cases[] = {
      {"0x0", 0},
      {"(0)", 0},
      {"(.u64)0", 0},
      {"((.s64)-4)>>1", uint64_t(-2)},
      {"1 ? 2 : 3", 2},
      {"0 ? 1 : 2 ? 3 : 4", 3},
      {"1+2*3-(8/4) % 3", 5},
      {"~0", ~uint64_t(0)},
      {"-1<0 && !0", 1},
      {"1/0", std::nullopt},
      {"0f3F800000", std::nullopt},
      {"tab", std::nullopt},
  };
  for (auto [Text, Value] : Cases) {
    auto M = parseOk(std::string(Header) + ".global .u64 g = " + Text + ";\n");
    const Operand &Init = M->Operands[*M->Decls[0].Names[0].Init];
    EXPECT_EQ(evaluateConstant(*M, Init), Value) << Text;
  }
}

TEST(Parser, DebugDirectivesAndSections) {
  auto M = parseOk(std::string(Header) +
                   ".file 1 \"/src/k.cu\", 1700000000, 1234\n"
                   ".entry k()\n{\n .loc 1 5 3\n"
                   " .loc 1 17 5, function_name $L__info_string0, "
                   "inlined_at 1 25 3\n ret;\n}\n"
                   ".section .debug_str\n{\n$L__info_string0:\n"
                   ".b8 95,0\n}\n");
  auto Body = M->body(M->Functions[0]);
  ASSERT_EQ(Body.size(), 3u);
  EXPECT_EQ(Body[0].Kind, StatementKind::Directive);
  EXPECT_EQ(M->text(Body[1].Text),
            ".loc 1 17 5, function_name $L__info_string0, inlined_at 1 25 3");
  EXPECT_EQ(M->Items.back().Kind, ItemKind::Section);
}

TEST(Parser, UnknownOpcodesAreKept) {
  auto M = parseOk(std::string(Header) +
                   ".entry k()\n{\n frobnicate.sync.aligned.b32 %r1, 3;\n"
                   " ret;\n}\n");
  EXPECT_EQ(printStatement(*M, M->body(M->Functions[0])[0]),
            "frobnicate.sync.aligned.b32 %r1, 3;");
}

TEST(Parser, ErrorsNameFileLineColumnAndExpectation) {
  EXPECT_EQ(parseError(std::string(Header) + ".entry k()\n{\n add.s32 %r1, %r2\n"
                                             " ret;\n}\n"),
            "bad.ptx:7:2: error: expected ',' or ';' after an operand, found "
            "'ret'");
  EXPECT_EQ(parseError(std::string(Header) + ".entry k()\n{\n ret;\n"),
            "bad.ptx:7:1: error: expected '}' closing the function body, "
            "found end of file");
  EXPECT_EQ(parseError("ret;"),
            "bad.ptx:1:1: error: expected a directive, function or variable "
            "declaration, found 'ret'");
  // The listing of `cuobjdump -ptx`, with or without its title.
  const std::string Listing = "arch = sm_90\ncode version = [8,0]\n"
                              "host = linux\n\n" + std::string(Header);
  const char *ListingHint =
      "error: expected a PTX module, which begins with '.version' (this "
      "looks like the listing of `cuobjdump -ptx`: extract the modules with "
      "`cuobjdump -xptx` or baton-extract), found ";
  EXPECT_EQ(parseError(Listing), std::string("bad.ptx:1:1: ") + ListingHint +
                                     "'arch'");
  EXPECT_EQ(parseError("\nFatbin ptx code:\n================\n" + Listing),
            std::string("bad.ptx:2:1: ") + ListingHint + "'Fatbin'");
  // Past the module's first item the same words are just wrong.
  EXPECT_EQ(parseError(std::string(Header) + "arch = sm_90\n"),
            "bad.ptx:4:1: error: expected a directive, function or variable "
            "declaration, found 'arch'");
  EXPECT_EQ(parseError(std::string(Header) + ".entry k()\n{\n mov.u32 %r1, #;\n}"),
            "bad.ptx:6:15: error: expected an operand, found invalid token "
            "'#'");
}
