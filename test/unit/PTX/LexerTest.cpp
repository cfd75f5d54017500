//===- LexerTest.cpp - Tokens of PTX source -------------------------------===//
#include "baton/PTX/Lexer.h"

#include <gtest/gtest.h>

#include <vector>

using namespace baton::ptx;

static std::vector<Token> lexAll(std::string_view Source) {
  Lexer L(Source);
  std::vector<Token> Tokens;
  for (Token T = L.next(); T.Kind != TokenKind::End; T = L.next()) {
    Tokens.push_back(T);
    if (T.Kind == TokenKind::Error)
      break;
  }
  return Tokens;
}

TEST(Lexer, OpcodeWithModifiersIsOneIdentifier) {
  auto T = lexAll("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                  "complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];");
  ASSERT_GE(T.size(), 2u);
  EXPECT_EQ(T[0].Kind, TokenKind::Identifier);
  EXPECT_EQ(T[0].Text, "cp.async.bulk.tensor.2d.shared::cluster.global."
                       "mbarrier::complete_tx::bytes");
  EXPECT_TRUE(T[1].is('['));
}

TEST(Lexer, SpecialRegisterComponent) {
  auto T = lexAll("mov.u32 %r1, %ctaid.x;");
  ASSERT_EQ(T.size(), 5u);
  EXPECT_EQ(T[3].Text, "%ctaid.x");
}

TEST(Lexer, NumbersOfEveryForm) {
  auto T = lexAll("42 0x1F 7U 0f3F800000 0d3FF0000000000000 1.5 0b101 1e-5");
  ASSERT_EQ(T.size(), 8u);
  EXPECT_EQ(T[0].Kind, TokenKind::Integer);
  EXPECT_EQ(T[1].Kind, TokenKind::Integer);
  EXPECT_EQ(T[2].Kind, TokenKind::Integer);
  EXPECT_EQ(T[3].Kind, TokenKind::Float);
  EXPECT_EQ(T[4].Kind, TokenKind::Float);
  EXPECT_EQ(T[5].Kind, TokenKind::Float);
  EXPECT_EQ(T[6].Kind, TokenKind::Integer);
  EXPECT_EQ(T[7].Kind, TokenKind::Float);
}

TEST(Lexer, MalformedFloatIsAnError) {
  auto T = lexAll("0f3F80");
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(T[0].Kind, TokenKind::Error);
}

TEST(Lexer, CommentsAreSkipped) {
  auto T = lexAll("// line\n/* block\n */ ret; // tail");
  ASSERT_EQ(T.size(), 2u);
  EXPECT_EQ(T[0].Text, "ret");
}

TEST(Lexer, UnterminatedCommentAndStringAreErrors) {
  EXPECT_EQ(lexAll("ret; /* open").back().Kind, TokenKind::Error);
  EXPECT_EQ(lexAll(".pragma \"open\n").back().Kind, TokenKind::Error);
}

TEST(Lexer, DirectiveKeepsScopeSuffix) {
  auto T = lexAll(".shared::cta .b32");
  ASSERT_EQ(T.size(), 2u);
  EXPECT_EQ(T[0].Kind, TokenKind::Directive);
  EXPECT_EQ(T[0].Text, ".shared::cta");
}

TEST(Lexer, TwoCharacterOperators) {
  auto T = lexAll("a<<2 b>=c d&&e");
  std::vector<std::string_view> Ops;
  for (const Token &Tok : T)
    if (Tok.Kind == TokenKind::Punct)
      Ops.push_back(Tok.Text);
  EXPECT_EQ(Ops, (std::vector<std::string_view>{"<<", ">=", "&&"}));
}

TEST(Lexer, LineColumn) {
  LineColumn LC = lineColumnOf("ab\ncd\n  ef", 8);
  EXPECT_EQ(LC.Line, 3u);
  EXPECT_EQ(LC.Column, 3u);
}
