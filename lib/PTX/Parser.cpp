//===- Parser.cpp - PTX text to AST ---------------------------------------===//
//
// Grammar (PTX ISA 9.0, chapters 4, 5, 10 and 11), as parsed here:
//
//   module     := item*
//   item       := .version N | .target ids | .address_size N | .file ...
//               | .pragma "s" ; | .section name { raw } | .alias ... ;
//               | linkage* (function | variable)
//   function   := (.entry | .func [(params)]) name [(params)] perf*
//                 (body | ; | <the next item, for a declaration>)
//   variable   := space qualifier* name suffix [= init] (, name ...)* ;
//   body       := { statement* }
//   statement  := { | } | label : | variable | .loc ... | .pragma "s" ;
//               | [@[!]pred] opcode [operand (, operand)*] ;
//   operand    := binary expression over primary:
//                 id | number | _ | {operands} | [operands] | (operands)
//               | id(operands) | id[operand]... | unary-op operand
//
//===----------------------------------------------------------------------===//
#include "baton/PTX/Parser.h"

#include "baton/PTX/Lexer.h"

#include <algorithm>
#include <array>
#include <limits>

namespace baton::ptx {
namespace {

bool isStateSpace(std::string_view D) {
  static constexpr std::array<std::string_view, 8> Spaces = {
      ".reg", ".shared", ".local", ".param", ".const", ".global", ".tex",
      ".sreg"};
  return std::find(Spaces.begin(), Spaces.end(), D) != Spaces.end();
}

bool isLinkage(std::string_view D) {
  return D == ".visible" || D == ".extern" || D == ".weak" || D == ".common";
}

/// Text in single quotes, control characters as \xNN (a NUL or an escape
/// would not show); appended rather than concatenated from temporaries,
/// which GCC 12 flags with false -Wrestrict warnings.
std::string quoted(std::string_view Text) {
  std::string S(1, '\'');
  for (char C : Text) {
    auto U = static_cast<unsigned char>(C);
    if (U < 0x20 || U == 0x7f) {
      static constexpr char Hex[] = "0123456789abcdef";
      S += "\\x";
      S += Hex[U >> 4];
      S += Hex[U & 15];
    } else {
      S += C;
    }
  }
  S += '\'';
  return S;
}

/// True for a directive that begins a module item (never a function's own
/// directive; .pragma, which can be either, counts as the function's).
bool beginsItem(const Token &Tok) {
  if (Tok.Kind != TokenKind::Directive)
    return false;
  std::string_view D = Tok.Text;
  return isLinkage(D) || isStateSpace(D) || D == ".entry" || D == ".func" ||
         D == ".version" || D == ".target" || D == ".address_size" ||
         D == ".file" || D == ".alias" || D == ".section";
}

/// Binding power of a binary operator; 0 if Tok is not one.
int binaryPrecedence(const Token &Tok) {
  if (Tok.Kind != TokenKind::Punct)
    return 0;
  std::string_view T = Tok.Text;
  if (T == "||") return 1;
  if (T == "&&") return 2;
  if (T == "|") return 3;
  if (T == "^") return 4;
  if (T == "&") return 5;
  if (T == "==" || T == "!=") return 6;
  if (T == "<" || T == ">" || T == "<=" || T == ">=") return 7;
  if (T == "<<" || T == ">>") return 8;
  if (T == "+" || T == "-") return 9;
  if (T == "*" || T == "/" || T == "%") return 10;
  return 0;
}

class Parser {
public:
  Parser(Module &M) : M(M), Lex(M.source()) {
    Tok = Lex.next();
    Next = Lex.next();
  }

  std::optional<Diagnostic> run();

private:
  // Token stream.
  void consume() {
    Tok = Next;
    Next = Lex.next();
  }
  TextRef ref(const Token &T) const { return M.refInSource(T.Text); }
  TextRef span(uint32_t Begin, const Token &Last) const {
    uint32_t End = Last.Offset + static_cast<uint32_t>(Last.Text.size());
    return TextRef{Begin, End - Begin};
  }

  // Errors: the first one wins; every parse function returns false after it.
  bool fail(std::string_view Expected);
  bool expectPunct(char C, std::string_view What);

  // Module level.
  bool parseItem();
  bool parseVerbatimDirective();
  bool parseFileDirective(Token &Last);
  bool parseLocDirective(Token &Last);
  bool parseSection();
  bool parseFunction(std::vector<TextRef> Linkage);
  bool parseParamList(std::vector<Param> &Params);
  bool parseFunctionDirectives(Function &F);
  bool parseBody(Function &F);

  // Declarations and statements.
  bool parseVarDecl(std::vector<TextRef> Linkage, uint32_t &DeclIndex);
  bool parseQualifiers(std::vector<TextRef> &Qualifiers);
  bool parseDeclSuffix(TextRef &Suffix);
  bool parseStatement(unsigned &Depth, bool &Done);
  bool parseInstruction();
  bool parseRawDirectiveStatement();

  // Operands.
  bool parseOperandList(char Close, std::vector<Operand> &Out);
  bool parseExpression(Operand &Out);
  bool parseBinary(Operand &Out, int MinPrecedence);
  bool parseUnary(Operand &Out);
  bool parsePrimary(Operand &Out);
  uint32_t commit(std::vector<Operand> &Ops);

  std::string describe(const Token &T) const;

  Module &M;
  Lexer Lex;
  Token Tok, Next;
  std::optional<Diagnostic> Error;
  unsigned ExprDepth = 0;
  /// One more level of expression nesting while it lives.
  struct Nested {
    unsigned &Depth;
    explicit Nested(unsigned &D) : Depth(++D) {}
    ~Nested() { --Depth; }
    bool tooDeep() const { return Depth > MaxNestingDepth; }
  };
};

std::string Parser::describe(const Token &T) const {
  switch (T.Kind) {
  case TokenKind::End:
    return "end of file";
  case TokenKind::Error:
    if (!T.Text.empty() && T.Text[0] == '"')
      return "unterminated string";
    if (T.Text.starts_with("/*"))
      return "unterminated comment";
    return "invalid token " + quoted(T.Text.substr(0, 40));
  default:
    return quoted(T.Text.substr(0, 60));
  }
}

bool Parser::fail(std::string_view Expected) {
  if (Error)
    return false;
  LineColumn LC = lineColumnOf(M.source(), Tok.Offset);
  Diagnostic D;
  D.File = M.fileName();
  D.Line = LC.Line;
  D.Column = LC.Column;
  D.Message = "expected " + std::string(Expected) + ", found " + describe(Tok);
  Error = std::move(D);
  return false;
}

bool Parser::expectPunct(char C, std::string_view What) {
  if (!Tok.is(C))
    return fail(What);
  consume();
  return true;
}

std::optional<Diagnostic> Parser::run() {
  while (Tok.Kind != TokenKind::End)
    if (!parseItem())
      return Error;
  return std::nullopt;
}

bool Parser::parseItem() {
  // `cuobjdump -ptx` prints its listing's title ("Fatbin ptx code:") and
  // each module behind a header ("arch = sm_90", "code version = [8,0]",
  // ...), which no assembler reads.
  bool CuobjdumpListing =
      Tok.Kind == TokenKind::Identifier &&
      ((Tok.Text == "arch" && Next.is('=')) || Tok.Text == "Fatbin");
  if (M.Items.empty() && CuobjdumpListing)
    return fail("a PTX module, which begins with '.version' (this looks like "
                "the listing of `cuobjdump -ptx`: extract the modules with "
                "`cuobjdump -xptx` or baton-extract)");
  if (Tok.Kind != TokenKind::Directive)
    return fail("a directive, function or variable declaration");
  std::string_view D = Tok.Text;
  if (D == ".section")
    return parseSection();
  if (D == ".version" || D == ".target" || D == ".address_size" ||
      D == ".file" || D == ".pragma" || D == ".alias")
    return parseVerbatimDirective();

  std::vector<TextRef> Linkage;
  while (Tok.Kind == TokenKind::Directive && isLinkage(Tok.Text)) {
    Linkage.push_back(ref(Tok));
    consume();
  }
  if (Tok.isDirective(".entry") || Tok.isDirective(".func"))
    return parseFunction(std::move(Linkage));
  if (Tok.Kind == TokenKind::Directive && isStateSpace(Tok.Text)) {
    uint32_t Index;
    if (!parseVarDecl(std::move(Linkage), Index))
      return false;
    M.Items.push_back(Item{ItemKind::Variable, Index, {}});
    return true;
  }
  return fail("'.entry', '.func' or a variable declaration");
}

// Module directives are kept verbatim: nothing in Baton rewrites them, and
// their grammar differs per directive.
bool Parser::parseVerbatimDirective() {
  Token First = Tok, Last = Tok;
  std::string_view D = Tok.Text;
  consume();
  if (D == ".file") {
    if (!parseFileDirective(Last))
      return false;
  } else if (D == ".version") {
    if (Tok.Kind != TokenKind::Float && Tok.Kind != TokenKind::Integer)
      return fail("a version number");
    Last = Tok;
    consume();
  } else if (D == ".address_size") {
    if (Tok.Kind != TokenKind::Integer)
      return fail("an address size");
    Last = Tok;
    consume();
  } else if (D == ".target") {
    for (;;) {
      if (Tok.Kind != TokenKind::Identifier)
        return fail("a target name");
      Last = Tok;
      consume();
      if (!Tok.is(','))
        break;
      consume();
    }
  } else if (D == ".alias") { // .alias fAlias, fAliasee ;
    if (Tok.Kind != TokenKind::Identifier)
      return fail("the name of the alias");
    TextRef Name = ref(Tok);
    consume();
    if (!expectPunct(',', "',' after the alias"))
      return false;
    if (Tok.Kind != TokenKind::Identifier)
      return fail("the name of the function it aliases");
    M.Aliases.push_back(Alias{Name, ref(Tok)});
    consume();
    if (!Tok.is(';'))
      return fail("';'");
    Last = Tok;
    consume();
  } else { // .pragma "..." ;
    while (!Tok.is(';')) {
      if (Tok.Kind == TokenKind::End || Tok.Kind == TokenKind::Error ||
          Tok.Kind == TokenKind::Directive)
        return fail("';'");
      consume();
    }
    Last = Tok;
    consume();
  }
  M.Items.push_back(Item{ItemKind::Directive, 0, span(First.Offset, Last)});
  return true;
}

// .file N "name" [, timestamp, size]
bool Parser::parseFileDirective(Token &Last) {
  if (Tok.Kind != TokenKind::Integer)
    return fail("a file number");
  consume();
  if (Tok.Kind != TokenKind::String)
    return fail("a file name string");
  Last = Tok;
  consume();
  if (Tok.is(',')) {
    for (int I = 0; I < 2; ++I) {
      if (!expectPunct(',', "','"))
        return false;
      if (Tok.Kind != TokenKind::Integer)
        return fail("an integer");
      Last = Tok;
      consume();
    }
  }
  return true;
}

// .loc file line column [, function_name sym [+ off]] [, inlined_at f l c]
bool Parser::parseLocDirective(Token &Last) {
  for (int I = 0; I < 3; ++I) {
    if (Tok.Kind != TokenKind::Integer)
      return fail("an integer in .loc");
    Last = Tok;
    consume();
  }
  while (Tok.is(',')) {
    consume();
    if (Tok.Kind == TokenKind::Identifier && Tok.Text == "function_name") {
      consume();
      if (Tok.Kind != TokenKind::Identifier)
        return fail("a symbol after function_name");
      Last = Tok;
      consume();
      if (Tok.is('+')) {
        consume();
        if (Tok.Kind != TokenKind::Integer)
          return fail("an offset");
        Last = Tok;
        consume();
      }
    } else if (Tok.Kind == TokenKind::Identifier && Tok.Text == "inlined_at") {
      consume();
      for (int I = 0; I < 3; ++I) {
        if (Tok.Kind != TokenKind::Integer)
          return fail("an integer after inlined_at");
        Last = Tok;
        consume();
      }
    } else {
      return fail("'function_name' or 'inlined_at'");
    }
  }
  return true;
}

// .section .debug_xxx { ... } is DWARF for the debugger, kept verbatim.
bool Parser::parseSection() {
  Token First = Tok;
  consume();
  if (Tok.Kind != TokenKind::Directive && Tok.Kind != TokenKind::Identifier)
    return fail("a section name");
  consume();
  if (!Tok.is('{'))
    return fail("'{'");
  unsigned Depth = 0;
  for (;;) {
    if (Tok.Kind == TokenKind::End || Tok.Kind == TokenKind::Error)
      return fail("'}' closing the section");
    if (Tok.is('{')) {
      if (++Depth > MaxNestingDepth)
        return fail("less deeply nested braces");
    } else if (Tok.is('}') && --Depth == 0) {
      break;
    }
    consume();
  }
  M.Items.push_back(Item{ItemKind::Section, 0, span(First.Offset, Tok)});
  consume();
  return true;
}

bool Parser::parseFunction(std::vector<TextRef> Linkage) {
  Function F;
  F.Linkage = std::move(Linkage);
  F.IsEntry = Tok.isDirective(".entry");
  F.Line = M.lineOf(ref(Tok));
  consume();
  if (!F.IsEntry && Tok.is('(')) {
    F.HasReturnList = true;
    if (!parseParamList(F.Returns))
      return false;
  }
  if (Tok.Kind != TokenKind::Identifier)
    return fail("a function name");
  F.Name = ref(Tok);
  consume();
  if (Tok.is('(')) {
    F.HasParamList = true;
    if (!parseParamList(F.Params))
      return false;
  }
  if (!parseFunctionDirectives(F))
    return false;
  const bool EndedBySemicolon = Tok.is(';');
  if (EndedBySemicolon) {
    consume();
  } else if (Tok.is('{')) {
    consume();
    F.HasBody = true;
    if (!parseBody(F))
      return false;
  } else if (Tok.Kind != TokenKind::End && !beginsItem(Tok)) {
    return fail("'{' or ';' after the function header");
  }
  // nvopencc (CUDA 3) ended declarations at the next item, without ';'; a
  // `.pragma "s";` between is the module's, not the declaration's.
  std::vector<Item> Pragmas;
  if (!F.HasBody && !EndedBySemicolon)
    while (!F.Directives.empty() &&
           M.text(F.Directives.back().Name) == ".pragma") {
      const FunctionDirective &D = F.Directives.back();
      std::string Text = ".pragma ";
      Text.append(M.text(D.Values.front())).append(";");
      Pragmas.insert(Pragmas.begin(), Item{ItemKind::Directive, 0,
                                           M.intern(Text)});
      F.Directives.pop_back();
    }
  M.Items.push_back(
      Item{ItemKind::Function, static_cast<uint32_t>(M.Functions.size()), {}});
  M.Functions.push_back(std::move(F));
  M.Items.insert(M.Items.end(), Pragmas.begin(), Pragmas.end());
  return true;
}

bool Parser::parseParamList(std::vector<Param> &Params) {
  consume(); // (
  if (Tok.is(')')) {
    consume();
    return true;
  }
  for (;;) {
    Param P;
    if (Tok.Kind != TokenKind::Directive)
      return fail("a parameter state space such as '.param'");
    if (!parseQualifiers(P.Qualifiers))
      return false;
    if (Tok.Kind != TokenKind::Identifier)
      return fail("a parameter name");
    P.Name = ref(Tok);
    consume();
    if (Tok.is('[') && !parseDeclSuffix(P.Suffix))
      return false;
    Params.push_back(std::move(P));
    if (Tok.is(')')) {
      consume();
      return true;
    }
    if (!expectPunct(',', "',' or ')' in the parameter list"))
      return false;
  }
}

bool Parser::parseFunctionDirectives(Function &F) {
  while (Tok.Kind == TokenKind::Directive && !beginsItem(Tok)) {
    FunctionDirective D;
    D.Name = ref(Tok);
    bool IsPragma = Tok.Text == ".pragma";
    consume();
    if (IsPragma) {
      if (Tok.Kind != TokenKind::String)
        return fail("a string after .pragma");
      D.Values.push_back(ref(Tok));
      consume();
      if (!expectPunct(';', "';' after .pragma"))
        return false;
    } else {
      while (Tok.Kind == TokenKind::Integer ||
             Tok.Kind == TokenKind::Identifier) {
        D.Values.push_back(ref(Tok));
        consume();
        if (!Tok.is(','))
          break;
        consume();
        if (Tok.Kind != TokenKind::Integer &&
            Tok.Kind != TokenKind::Identifier)
          return fail("a value after ','");
      }
    }
    F.Directives.push_back(std::move(D));
  }
  return true;
}

bool Parser::parseBody(Function &F) {
  F.BodyBegin = static_cast<uint32_t>(M.Statements.size());
  unsigned Depth = 1;
  bool Done = false;
  while (!Done)
    if (!parseStatement(Depth, Done))
      return false;
  F.BodyEnd = static_cast<uint32_t>(M.Statements.size());
  return true;
}

bool Parser::parseStatement(unsigned &Depth, bool &Done) {
  if (Tok.is('}')) {
    consume();
    if (--Depth == 0) {
      Done = true;
      return true;
    }
    M.Statements.push_back(Statement{{}, 0, 0, StatementKind::BlockEnd, 0});
    return true;
  }
  if (Tok.is('{')) {
    if (++Depth > MaxNestingDepth)
      return fail("fewer than 256 nested scopes");
    consume();
    M.Statements.push_back(Statement{{}, 0, 0, StatementKind::BlockBegin, 0});
    return true;
  }
  if (Tok.Kind == TokenKind::Identifier && Next.is(':')) {
    M.Statements.push_back(
        Statement{ref(Tok), 0, 0, StatementKind::Label, 0});
    consume();
    consume();
    return true;
  }
  if (Tok.Kind == TokenKind::Directive) {
    if (isStateSpace(Tok.Text)) {
      uint32_t Index;
      if (!parseVarDecl({}, Index))
        return false;
      M.Statements.push_back(
          Statement{{}, Index, 0, StatementKind::Decl, 0});
      return true;
    }
    return parseRawDirectiveStatement();
  }
  if (Tok.is('@') || Tok.Kind == TokenKind::Identifier)
    return parseInstruction();
  return fail(Depth > 0 && Tok.Kind == TokenKind::End
                  ? "'}' closing the function body"
                  : "an instruction, label, declaration or '}'");
}

// Directives inside a body (.loc, .pragma, .branchtargets, .calltargets,
// .callprototype, ...) are kept verbatim.
bool Parser::parseRawDirectiveStatement() {
  Token First = Tok, Last = Tok;
  bool IsLoc = Tok.Text == ".loc";
  bool IsFile = Tok.Text == ".file";
  consume();
  if (IsLoc || IsFile) {
    if (!(IsLoc ? parseLocDirective(Last) : parseFileDirective(Last)))
      return false;
  } else {
    unsigned Parens = 0;
    while (!(Tok.is(';') && Parens == 0)) {
      if (Tok.Kind == TokenKind::End || Tok.Kind == TokenKind::Error ||
          Tok.is('{') || Tok.is('}'))
        return fail("';' ending the directive");
      if (Tok.is('('))
        ++Parens;
      else if (Tok.is(')') && Parens > 0)
        --Parens;
      consume();
    }
    Last = Tok;
    consume();
  }
  M.Statements.push_back(Statement{span(First.Offset, Last), 0, 0,
                                   StatementKind::Directive, 0});
  return true;
}

bool Parser::parseInstruction() {
  std::vector<Operand> Ops;
  uint8_t Flags = 0;
  if (Tok.is('@')) {
    consume();
    Operand Guard;
    Guard.Kind = OperandKind::Guard;
    if (Tok.is('!')) {
      Guard.Flags |= OperandNegated;
      consume();
    }
    if (Tok.Kind != TokenKind::Identifier)
      return fail("a predicate register after '@'");
    Guard.Text = ref(Tok);
    consume();
    Ops.push_back(Guard);
    Flags |= StatementHasGuard;
  }
  if (Tok.Kind != TokenKind::Identifier)
    return fail("an instruction opcode");
  TextRef Opcode = ref(Tok);
  consume();
  if (!Tok.is(';')) {
    for (;;) {
      Operand Op;
      if (!parseExpression(Op))
        return false;
      Ops.push_back(Op);
      if (Tok.is(';'))
        break;
      if (!expectPunct(',', "',' or ';' after an operand"))
        return false;
    }
  }
  consume(); // ;
  if (Ops.size() > std::numeric_limits<uint16_t>::max())
    return fail("fewer operands");
  Statement S{Opcode, 0, static_cast<uint16_t>(Ops.size()),
              StatementKind::Instruction, Flags};
  S.First = commit(Ops);
  M.Statements.push_back(S);
  return true;
}

// Children of one node are stored contiguously: they are collected in a
// local vector while parsing and appended when the node is complete.
uint32_t Parser::commit(std::vector<Operand> &Ops) {
  uint32_t First = static_cast<uint32_t>(M.Operands.size());
  M.Operands.insert(M.Operands.end(), Ops.begin(), Ops.end());
  return First;
}

bool Parser::parseOperandList(char Close, std::vector<Operand> &Out) {
  if (Tok.is(Close)) {
    consume();
    return true;
  }
  for (;;) {
    Operand Op;
    // `name = value` in the braces of a .samplerref or .texref initializer:
    // { addr_mode_0 = clamp_to_edge, filter_mode = linear }.
    if (Close == '}' && Tok.Kind == TokenKind::Identifier && Next.is('=')) {
      Op.Kind = OperandKind::Field;
      Op.Text = ref(Tok);
      consume();
      consume(); // =
      std::vector<Operand> Value(1);
      if (!parseExpression(Value[0]))
        return false;
      Op.FirstChild = commit(Value);
      Op.NumChildren = 1;
    } else if (!parseExpression(Op)) {
      return false;
    }
    Out.push_back(Op);
    if (Tok.is(Close)) {
      consume();
      return true;
    }
    if (!expectPunct(',', std::string("',' or '") + Close + "'"))
      return false;
  }
}

// A constant expression as C writes it (PTX ISA 4.6): c ? a : b below the
// binary operators, right to left.
bool Parser::parseExpression(Operand &Out) {
  Nested Level(ExprDepth);
  if (Level.tooDeep())
    return fail("a less deeply nested operand");

  if (!parseBinary(Out, 1))
    return false;
  if (!Tok.is('?'))
    return true;
  Operand Op;
  Op.Kind = OperandKind::Conditional;
  Op.Text = ref(Tok);
  consume();
  Operand Then, Else;
  if (!parseExpression(Then) || !expectPunct(':', "':' of '?:'") ||
      !parseExpression(Else))
    return false;
  std::vector<Operand> Children{Out, Then, Else};
  Op.FirstChild = commit(Children);
  Op.NumChildren = 3;
  Out = Op;
  return true;
}

// Its recursion is bounded by the precedence levels; the nesting it reaches
// through parentheses is counted by parseExpression.
bool Parser::parseBinary(Operand &Out, int MinPrecedence) {
  if (!parseUnary(Out))
    return false;
  for (;;) {
    int Prec = binaryPrecedence(Tok);
    if (Prec < MinPrecedence || Prec == 0)
      return true;
    Operand Op;
    Op.Kind = OperandKind::Binary;
    Op.Text = ref(Tok);
    consume();
    Operand Rhs;
    if (!parseBinary(Rhs, Prec + 1))
      return false;
    std::vector<Operand> Children{Out, Rhs};
    Op.FirstChild = commit(Children);
    Op.NumChildren = 2;
    Out = Op;
  }
}

bool Parser::parseUnary(Operand &Out) {
  // (.s64) and (.u64) casts: no parenthesised expression starts with a
  // directive.
  bool Cast = Tok.is('(') && Next.Kind == TokenKind::Directive;
  if (Tok.is('-') || Tok.is('!') || Tok.is('~') || Cast) {
    Operand Op;
    Op.Kind = Cast ? OperandKind::Cast : OperandKind::Unary;
    if (Cast) {
      consume(); // (
      if (Tok.Text != ".s64" && Tok.Text != ".u64")
        return fail("'.s64' or '.u64' in a cast");
    }
    Op.Text = ref(Tok);
    consume();
    if (Cast && !expectPunct(')', "')' after the cast's type"))
      return false;
    Operand Child;
    {
      Nested Level(ExprDepth);
      if (Level.tooDeep())
        return fail("a less deeply nested operand");
      if (!parseUnary(Child))
        return false;
    }
    std::vector<Operand> Children{Child};
    Op.FirstChild = commit(Children);
    Op.NumChildren = 1;
    Out = Op;
    return true;
  }
  return parsePrimary(Out);
}

bool Parser::parsePrimary(Operand &Out) {
  auto Group = [&](OperandKind Kind, char Close) {
    Out.Kind = Kind;
    Out.Text = ref(Tok);
    consume();
    std::vector<Operand> Children;
    if (!parseOperandList(Close, Children))
      return false;
    if (Children.size() > std::numeric_limits<uint32_t>::max())
      return fail("fewer elements");
    Out.NumChildren = static_cast<uint32_t>(Children.size());
    Out.FirstChild = commit(Children);
    return true;
  };
  switch (Tok.Kind) {
  case TokenKind::Identifier:
    Out.Text = ref(Tok);
    if (Tok.Text == "_") {
      Out.Kind = OperandKind::Sink;
      consume();
      return true;
    }
    consume();
    if (Tok.is('(')) { // generic(foo), mask(...)
      TextRef Name = Out.Text;
      if (!Group(OperandKind::Apply, ')'))
        return false;
      Out.Text = Name;
      return true;
    }
    Out.Kind = OperandKind::Symbol;
    // An array element, a[4] or a[%r1] (PTX ISA 9.0, 6.4.2): the element's
    // address as an operand of ld, st or mov.
    while (Tok.is('[')) {
      Operand Element;
      Element.Kind = OperandKind::Element;
      Element.Text = ref(Tok);
      consume();
      Operand Index;
      if (!parseExpression(Index) || !expectPunct(']', "']'"))
        return false;
      std::vector<Operand> Children{Out, Index};
      Element.FirstChild = commit(Children);
      Element.NumChildren = 2;
      Out = Element;
    }
    return true;
  case TokenKind::Integer:
    // A byte mask over an address in an initializer, 0xFF00(generic(gv)):
    // the address's second byte (PTX ISA 9.0, 5.4.4).
    if (Next.is('(')) {
      TextRef Mask = ref(Tok);
      consume();
      if (!Group(OperandKind::Apply, ')'))
        return false;
      Out.Text = Mask;
      return true;
    }
    [[fallthrough]];
  case TokenKind::Float:
  case TokenKind::String:
    Out.Kind = Tok.Kind == TokenKind::Integer ? OperandKind::Integer
               : Tok.Kind == TokenKind::Float ? OperandKind::Float
                                              : OperandKind::String;
    Out.Text = ref(Tok);
    consume();
    return true;
  case TokenKind::Punct:
    if (Tok.is('{'))
      return Group(OperandKind::Vector, '}');
    if (Tok.is('['))
      return Group(OperandKind::Address, ']');
    if (Tok.is('('))
      return Group(OperandKind::Paren, ')');
    break;
  default:
    break;
  }
  return fail("an operand");
}

bool Parser::parseQualifiers(std::vector<TextRef> &Qualifiers) {
  while (Tok.Kind == TokenKind::Directive) {
    Token First = Tok;
    std::string_view D = Tok.Text;
    consume();
    if (D == ".attribute") { // .attribute(.managed)
      if (!Tok.is('('))
        return fail("'(' after .attribute");
      unsigned Parens = 0;
      for (;;) {
        if (Tok.Kind == TokenKind::End || Tok.Kind == TokenKind::Error)
          return fail("')'");
        if (Tok.is('('))
          ++Parens;
        if (Tok.is(')') && --Parens == 0)
          break;
        consume();
      }
      Qualifiers.push_back(span(First.Offset, Tok));
      consume();
      continue;
    }
    Qualifiers.push_back(ref(First));
    if (D == ".align") {
      if (Tok.Kind != TokenKind::Integer)
        return fail("an alignment after .align");
      Qualifiers.push_back(ref(Tok));
      consume();
    }
  }
  return true;
}

// "<N>" of a register range, or "[N]..." / "[]" array dimensions.
bool Parser::parseDeclSuffix(TextRef &Suffix) {
  Token First = Tok;
  if (Tok.is('<')) {
    consume();
    if (Tok.Kind != TokenKind::Integer)
      return fail("a register count");
    consume();
    if (!Tok.is('>'))
      return fail("'>'");
    Suffix = span(First.Offset, Tok);
    consume();
    return true;
  }
  Token Last = Tok;
  while (Tok.is('[')) {
    consume();
    if (Tok.Kind == TokenKind::Integer)
      consume();
    if (!Tok.is(']'))
      return fail("']' closing the array dimension");
    Last = Tok;
    consume();
  }
  Suffix = span(First.Offset, Last);
  return true;
}

bool Parser::parseVarDecl(std::vector<TextRef> Linkage, uint32_t &DeclIndex) {
  VarDecl D;
  D.Linkage = std::move(Linkage);
  D.Line = M.lineOf(ref(Tok));
  D.Space = ref(Tok);
  consume();
  if (!parseQualifiers(D.Qualifiers))
    return false;
  for (;;) {
    DeclaredName N;
    if (Tok.Kind != TokenKind::Identifier)
      return fail("a variable name");
    N.Name = ref(Tok);
    consume();
    if ((Tok.is('<') || Tok.is('[')) && !parseDeclSuffix(N.Suffix))
      return false;
    if (Tok.is('=')) {
      consume();
      Operand Init;
      if (!parseExpression(Init))
        return false;
      std::vector<Operand> One{Init};
      N.Init = commit(One);
    }
    D.Names.push_back(N);
    if (Tok.is(';'))
      break;
    if (!expectPunct(',', "',' or ';' in the declaration"))
      return false;
  }
  consume();
  DeclIndex = static_cast<uint32_t>(M.Decls.size());
  M.Decls.push_back(std::move(D));
  return true;
}

} // namespace

ParseResult parseModule(std::string Source, std::string FileName) {
  ParseResult R;
  if (Source.size() >= std::numeric_limits<uint32_t>::max() / 2) {
    R.Error = Diagnostic{Severity::Error, FileName, 0, 0,
                         "input is larger than 2 GiB; split the module"};
    return R;
  }
  auto M = std::make_unique<Module>(std::move(Source), std::move(FileName));
  // Reserve for typical PTX density so the arrays rarely grow by copying;
  // pages that are never touched cost no memory.
  M->Operands.reserve(M->source().size() / 6);
  M->Statements.reserve(M->source().size() / 24);
  Parser P(*M);
  if (auto Err = P.run()) {
    R.Error = std::move(Err);
    return R;
  }
  R.Mod = std::move(M);
  return R;
}

} // namespace baton::ptx
