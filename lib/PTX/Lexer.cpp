//===- Lexer.cpp - Tokens of PTX source -----------------------------------===//
//
// PTX ISA 9.0, section 4 (Syntax): identifiers are [a-zA-Z][a-zA-Z0-9_$]* or
// [_$%][a-zA-Z0-9_$]+; integer literals are decimal, hex (0x), octal (0...),
// binary (0b), optionally U-suffixed; floating-point literals are decimal or
// the exact hex forms 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX.
//
//===----------------------------------------------------------------------===//
#include "baton/PTX/Lexer.h"

#include <algorithm>

namespace baton::ptx {

static bool isIdentStart(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_' ||
         C == '$' || C == '%';
}
static bool isIdentChar(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
         (C >= '0' && C <= '9') || C == '_' || C == '$';
}
static bool isDigit(char C) { return C >= '0' && C <= '9'; }
static bool isHexDigit(char C) {
  return isDigit(C) || (C >= 'a' && C <= 'f') || (C >= 'A' && C <= 'F');
}

// A C preprocessor line marker, `# 12 "a.cu"` or `#line 12 "a.cu"`, with
// the flags cpp may append (`# 1 "a.cu" 1 3`), running to the end of the
// line: ptxas takes them anywhere in a module, as cpp leaves them in
// preprocessed PTX. Returns the offset past the marker, or npos if the text
// at Begin ('#') is not one.
static size_t lineMarkerEnd(std::string_view Source, size_t Begin) {
  const size_t N = Source.size();
  size_t I = Begin + 1;
  auto Blanks = [&] {
    size_t From = I;
    while (I < N && (Source[I] == ' ' || Source[I] == '\t'))
      ++I;
    return I > From;
  };
  auto Digits = [&] {
    size_t From = I;
    while (I < N && isDigit(Source[I]))
      ++I;
    return I > From;
  };
  Blanks();
  if (Source.substr(I, 4) == "line") {
    I += 4;
    if (!Blanks())
      return std::string_view::npos;
  }
  if (!Digits() || !Blanks() || I >= N || Source[I] != '"')
    return std::string_view::npos;
  // The file name runs to the next '"': ptxas knows no escapes in it.
  for (++I; I < N && Source[I] != '"'; ++I)
    if (Source[I] == '\n')
      return std::string_view::npos;
  if (I >= N)
    return std::string_view::npos;
  ++I; // closing '"'
  while (Blanks() && Digits())
    ;
  while (I < N && (Source[I] == '\f' || Source[I] == '\r' ||
                   Source[I] == ' ' || Source[I] == '\t'))
    ++I;
  // ptxas wants the line's end, not the end of the file.
  if (I >= N || Source[I] != '\n')
    return std::string_view::npos;
  return I;
}

void Lexer::skipTrivia() {
  const size_t N = Source.size();
  while (Pos < N) {
    char C = Source[Pos];
    if (C == '#') {
      size_t End = lineMarkerEnd(Source, Pos);
      if (End == std::string_view::npos)
        return; // next() reports the stray '#'
      Pos = End;
      continue;
    }
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' ||
        C == '\v') {
      ++Pos;
      continue;
    }
    if (C == '/' && Pos + 1 < N && Source[Pos + 1] == '/') {
      size_t Eol = Source.find('\n', Pos + 2);
      Pos = Eol == std::string_view::npos ? N : Eol + 1;
      continue;
    }
    if (C == '/' && Pos + 1 < N && Source[Pos + 1] == '*') {
      size_t Close = Source.find("*/", Pos + 2);
      if (Close == std::string_view::npos)
        return; // next() reports the unterminated comment
      Pos = Close + 2;
      continue;
    }
    return;
  }
}

// A dotted part is ".name" or "::name" after a name: ".global", ".v4",
// ".2d", ".shared::cluster", ".L1::no_allocate".
void Lexer::lexDottedParts() {
  const size_t N = Source.size();
  while (Pos + 1 < N) {
    if (Source[Pos] == '.' && isIdentChar(Source[Pos + 1])) {
      Pos += 2;
    } else if (Source[Pos] == ':' && Source[Pos + 1] == ':' && Pos + 2 < N &&
               isIdentChar(Source[Pos + 2])) {
      Pos += 3;
    } else {
      return;
    }
    while (Pos < N && isIdentChar(Source[Pos]))
      ++Pos;
  }
}

Token Lexer::lexIdentifier(size_t Begin) {
  ++Pos;
  while (Pos < Source.size() && isIdentChar(Source[Pos]))
    ++Pos;
  lexDottedParts();
  return make(TokenKind::Identifier, Begin);
}

Token Lexer::lexDirective(size_t Begin) {
  ++Pos; // '.'
  while (Pos < Source.size() && isIdentChar(Source[Pos]))
    ++Pos;
  // Only "::" continues a directive (".shared::cta"); a further '.' starts the
  // next directive token, as in ".reg.b32" which ptxas also reads as two.
  const size_t N = Source.size();
  while (Pos + 2 < N && Source[Pos] == ':' && Source[Pos + 1] == ':' &&
         isIdentChar(Source[Pos + 2])) {
    Pos += 3;
    while (Pos < N && isIdentChar(Source[Pos]))
      ++Pos;
  }
  return make(TokenKind::Directive, Begin);
}

Token Lexer::lexNumber(size_t Begin) {
  const size_t N = Source.size();
  auto Rest = [&](size_t I) { return I < N ? Source[I] : '\0'; };
  TokenKind Kind = TokenKind::Integer;
  char Prefix = Rest(Pos + 1);
  if (Source[Pos] == '0' && (Prefix == 'x' || Prefix == 'X' || Prefix == 'f' ||
                             Prefix == 'F' || Prefix == 'd' || Prefix == 'D')) {
    Pos += 2;
    size_t Digits = Pos;
    while (Pos < N && isHexDigit(Source[Pos]))
      ++Pos;
    if (Pos == Digits)
      return make(TokenKind::Error, Begin);
    if (Prefix != 'x' && Prefix != 'X') {
      Kind = TokenKind::Float;
      size_t Want = (Prefix == 'f' || Prefix == 'F') ? 8 : 16;
      if (Pos - Digits != Want)
        return make(TokenKind::Error, Begin);
    }
  } else if (Source[Pos] == '0' && (Prefix == 'b' || Prefix == 'B')) {
    Pos += 2;
    while (Pos < N && (Source[Pos] == '0' || Source[Pos] == '1'))
      ++Pos;
  } else {
    while (Pos < N && isDigit(Source[Pos]))
      ++Pos;
    if (Rest(Pos) == '.' && isDigit(Rest(Pos + 1))) {
      Kind = TokenKind::Float;
      ++Pos;
      while (Pos < N && isDigit(Source[Pos]))
        ++Pos;
    }
    if ((Rest(Pos) == 'e' || Rest(Pos) == 'E') &&
        (isDigit(Rest(Pos + 1)) ||
         ((Rest(Pos + 1) == '+' || Rest(Pos + 1) == '-') &&
          isDigit(Rest(Pos + 2))))) {
      Kind = TokenKind::Float;
      Pos += 2;
      while (Pos < N && isDigit(Source[Pos]))
        ++Pos;
    }
  }
  if (Kind == TokenKind::Integer && (Rest(Pos) == 'U' || Rest(Pos) == 'u'))
    ++Pos;
  if (Pos < N && isIdentChar(Source[Pos])) {
    while (Pos < N && isIdentChar(Source[Pos]))
      ++Pos;
    return make(TokenKind::Error, Begin);
  }
  return make(Kind, Begin);
}

Token Lexer::lexString(size_t Begin) {
  ++Pos;
  const size_t N = Source.size();
  while (Pos < N && Source[Pos] != '"' && Source[Pos] != '\n') {
    if (Source[Pos] == '\\' && Pos + 1 < N)
      ++Pos;
    ++Pos;
  }
  if (Pos >= N || Source[Pos] != '"')
    return make(TokenKind::Error, Begin);
  ++Pos;
  return make(TokenKind::String, Begin);
}

Token Lexer::next() {
  skipTrivia();
  const size_t N = Source.size();
  size_t Begin = Pos;
  if (Pos >= N)
    return make(TokenKind::End, Begin);
  char C = Source[Pos];
  // The driver reads PTX as a NUL-terminated string, and programs that hand
  // it to the driver often save it with the terminator: NULs end the input
  // where nothing else follows them.
  if (C == '\0' && Source.find_first_not_of('\0', Pos) == std::string_view::npos) {
    Pos = N;
    return make(TokenKind::End, N);
  }
  if (C == '/' && Pos + 1 < N && Source[Pos + 1] == '*') {
    Pos = N; // unterminated block comment
    return make(TokenKind::Error, Begin);
  }
  if (C == '%' && !(Pos + 1 < N && isIdentChar(Source[Pos + 1]))) {
    ++Pos;
    return make(TokenKind::Punct, Begin);
  }
  if (isIdentStart(C))
    return lexIdentifier(Begin);
  if (C == '.' && Pos + 1 < N && isIdentChar(Source[Pos + 1]) &&
      !isDigit(Source[Pos + 1]))
    return lexDirective(Begin);
  if (isDigit(C))
    return lexNumber(Begin);
  if (C == '"')
    return lexString(Begin);

  static constexpr std::string_view TwoCharOps[] = {"<<", ">>", "<=", ">=",
                                                    "==", "!=", "&&", "||"};
  if (Pos + 1 < N) {
    std::string_view Two = Source.substr(Pos, 2);
    if (std::find(std::begin(TwoCharOps), std::end(TwoCharOps), Two) !=
        std::end(TwoCharOps)) {
      Pos += 2;
      return make(TokenKind::Punct, Begin);
    }
  }
  static constexpr std::string_view OneCharOps = ",;:{}[]()@=+-*/&|^~!<>?";
  if (OneCharOps.find(C) != std::string_view::npos) {
    ++Pos;
    return make(TokenKind::Punct, Begin);
  }
  ++Pos;
  // Keep a multi-byte UTF-8 sequence in one error token for the message.
  while (Pos < N && (static_cast<unsigned char>(Source[Pos]) & 0xC0) == 0x80)
    ++Pos;
  return make(TokenKind::Error, Begin);
}

LineColumn lineColumnOf(std::string_view Source, uint32_t Offset) {
  LineColumn LC;
  Offset = std::min<uint32_t>(Offset, Source.size());
  for (uint32_t I = 0; I < Offset; ++I) {
    if (Source[I] == '\n') {
      ++LC.Line;
      LC.Column = 1;
    } else {
      ++LC.Column;
    }
  }
  return LC;
}

} // namespace baton::ptx
