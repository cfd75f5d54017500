//===- baton/PTX/Lexer.h - Tokens of PTX source -----------------*- C++ -*-===//
//
// A hand-written lexer over a source buffer. Tokens are views into the buffer;
// comments, whitespace and C preprocessor line markers (`# 12 "a.cu"`) are
// skipped. Identifiers absorb their dotted
// suffixes ("ld.global.nc.v4.f32", "%tid.x", "cp.async.bulk.shared::cluster")
// because PTX never separates them with blanks and no PTX name contains a dot:
// the parser then sees an opcode or a register component as one token.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PTX_LEXER_H
#define BATON_PTX_LEXER_H

#include <cstdint>
#include <string_view>

namespace baton::ptx {

enum class TokenKind : uint8_t {
  End,
  Identifier, ///< foo, %r1, $L__BB0_1, ld.global.f32, %tid.x
  Directive,  ///< .reg .entry .align .b32 .shared::cta
  Integer,
  Float,
  String,
  Punct,      ///< one of , ; : { } [ ] ( ) @ = and the operators
  Error,      ///< a character no PTX token starts with, or an unclosed string
};

struct Token {
  TokenKind Kind = TokenKind::End;
  std::string_view Text;
  uint32_t Offset = 0;

  bool is(char C) const {
    return Kind == TokenKind::Punct && Text.size() == 1 && Text[0] == C;
  }
  bool isDirective(std::string_view D) const {
    return Kind == TokenKind::Directive && Text == D;
  }
};

class Lexer {
public:
  explicit Lexer(std::string_view Source) : Source(Source) {}

  /// Lexes the next token. Returns an End token at the end of input, and an
  /// Error token (covering the offending text) on malformed input.
  Token next();

private:
  void skipTrivia();
  Token make(TokenKind Kind, size_t Begin) const {
    return Token{Kind, Source.substr(Begin, Pos - Begin),
                 static_cast<uint32_t>(Begin)};
  }
  Token lexIdentifier(size_t Begin);
  Token lexDirective(size_t Begin);
  Token lexNumber(size_t Begin);
  Token lexString(size_t Begin);
  void lexDottedParts();

  std::string_view Source;
  size_t Pos = 0;
};

/// Line and column (1-based) of Offset in Source.
struct LineColumn {
  uint32_t Line = 1;
  uint32_t Column = 1;
};
LineColumn lineColumnOf(std::string_view Source, uint32_t Offset);

} // namespace baton::ptx

#endif // BATON_PTX_LEXER_H
