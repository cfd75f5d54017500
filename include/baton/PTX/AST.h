//===- baton/PTX/AST.h - Abstract syntax tree of a PTX module ---*- C++ -*-===//
//
// The AST is built for large inputs: a framework library can hold hundreds of
// megabytes of PTX, and parse + print must stay within a few times the input
// size. So nodes are small plain structs in module-wide arrays, text is never
// copied (a TextRef points into the source buffer, or into the module's arena
// for text a transform creates), and children are index ranges.
//
// The parsed body of a function is never modified. Transforms append new
// statements and operands and give new functions new ranges, which makes
// "the original kernel is untouched" a structural property.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PTX_AST_H
#define BATON_PTX_AST_H

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace baton::ptx {

/// A piece of text owned by a Module: [Offset, Offset + Size) of its source
/// buffer, or of its arena when Offset is at or past the end of the source.
struct TextRef {
  uint32_t Offset = 0;
  uint32_t Size = 0;
};

enum class OperandKind : uint8_t {
  Symbol,   ///< register, variable, label or function name: %r1, %tid.x, foo
  Integer,  ///< 42, 0x1f, 7U
  Float,    ///< 0f3F800000, 0d3FF0000000000000, 1.5
  String,   ///< "text" (directives only)
  Sink,     ///< _
  Vector,   ///< {a, b, ...}
  Address,  ///< [a], [a+4], [tensor, {x, y}]
  Paren,    ///< (a, b) in call, or a parenthesised expression
  Apply,    ///< name(args): generic(foo); mask(address): 0xFF00(generic(foo))
  Element,  ///< array[index]: children are the array operand and the index
  Unary,    ///< Text is the operator: - ! ~
  Binary,   ///< Text is the operator: + - * / % & | ^ << >> && || == != ...
  Guard,    ///< @p / @!p of an instruction; Text is the predicate
  Cast,     ///< (.s64) x or (.u64) x; Text is the type
  Conditional, ///< c ? a : b; children c, a, b
  Field,    ///< name = value in a .samplerref/.texref initializer; Text is
            ///< the name, the one child the value
};

/// Operand flags.
enum : uint8_t { OperandNegated = 1 };

struct Operand {
  TextRef Text;
  uint32_t FirstChild = 0;
  uint32_t NumChildren = 0;
  OperandKind Kind = OperandKind::Symbol;
  uint8_t Flags = 0;
};

enum class StatementKind : uint8_t {
  Instruction, ///< Text: opcode with modifiers; operands: [guard] args...
  Label,       ///< Text: label name
  Decl,        ///< First: index into Module::Decls
  Directive,   ///< Text: the whole directive, printed verbatim (.loc, .pragma)
  BlockBegin,  ///< {
  BlockEnd,    ///< }
};

/// Statement flags.
enum : uint8_t { StatementHasGuard = 1 };

struct Statement {
  TextRef Text;
  uint32_t First = 0;   ///< first operand (Instruction) or decl index (Decl)
  uint16_t Count = 0;   ///< number of operands, guard included
  StatementKind Kind = StatementKind::Instruction;
  uint8_t Flags = 0;
};

/// One name declared by a variable declaration, with its array dimensions or
/// register range and its initializer.
struct DeclaredName {
  TextRef Name;
  TextRef Suffix;                  ///< "<10>", "[1024]", "[2][3]", "[]" or empty
  std::optional<uint32_t> Init;    ///< operand index of the initializer
};

/// `.reg .b32 %r<5>;`, `.shared .align 16 .b8 tile[1024];`,
/// `.visible .global .align 4 .u32 counter = 0;` ...
struct VarDecl {
  std::vector<TextRef> Linkage;    ///< .visible .extern .weak .common
  TextRef Space;                   ///< .reg .shared .global .const .local .param ...
  std::vector<TextRef> Qualifiers; ///< .align 16, .v4, .b8, .attribute(...) tokens
  std::vector<DeclaredName> Names;
  uint32_t Line = 0;
};

/// A kernel or device-function parameter: `.param .u64 .ptr .align 8 p`.
struct Param {
  std::vector<TextRef> Qualifiers; ///< the state space first, then the rest
  TextRef Name;
  TextRef Suffix;                  ///< array dimensions, or empty
};

/// Performance-tuning and cluster directives after a function's parameters:
/// `.maxntid 256, 1, 1`, `.reqntid 128`, `.maxnreg 64`, `.noreturn`, ...
struct FunctionDirective {
  TextRef Name;
  std::vector<TextRef> Values;
};

struct Function {
  bool IsEntry = false;            ///< .entry (kernel) vs .func
  std::vector<TextRef> Linkage;
  std::vector<Param> Returns;      ///< .func return parameters
  bool HasReturnList = false;      ///< `()` printed even if empty
  TextRef Name;
  std::vector<Param> Params;
  bool HasParamList = false;
  std::vector<FunctionDirective> Directives;
  bool HasBody = false;            ///< false for prototypes ending in ';'
  uint32_t BodyBegin = 0;          ///< statements [BodyBegin, BodyEnd) of the
  uint32_t BodyEnd = 0;            ///< module, the outer braces excluded
  uint32_t Line = 0;
};

enum class ItemKind : uint8_t {
  Directive, ///< .version .target .address_size .file .pragma .alias ...
  Variable,  ///< module-scope variable declaration; Index into Decls
  Function,  ///< Index into Functions
  Section,   ///< .section name { ... } debug blocks, verbatim
};

struct Item {
  ItemKind Kind;
  uint32_t Index = 0;              ///< Decls / Functions index
  TextRef Text;                    ///< Directive / Section: verbatim text
};

/// `.alias fAlias, fAliasee;`: calls of fAlias, a function declared
/// without a body, run fAliasee (PTX ISA 9.0, ".alias"). The directive itself
/// stays a verbatim Item.
struct Alias {
  TextRef Name;
  TextRef Aliasee;
};

/// A parsed PTX module. Owns its source text and all AST storage.
class Module {
public:
  Module(std::string Source, std::string FileName);
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  Module(Module &&) = default;
  Module &operator=(Module &&) = default;

  /// The text of Ref. Views stay valid for the module's lifetime.
  std::string_view text(TextRef Ref) const {
    if (Ref.Offset < SourceSize)
      return std::string_view(Source).substr(Ref.Offset, Ref.Size);
    return Arena[Ref.Offset - SourceSize];
  }
  /// Copies S into the arena; for text that does not occur in the source.
  TextRef intern(std::string_view S);
  /// A TextRef for a view into the source buffer (as the parser makes).
  TextRef refInSource(std::string_view S) const {
    return TextRef{static_cast<uint32_t>(S.data() - Source.data()),
                   static_cast<uint32_t>(S.size())};
  }
  /// 1-based line of Ref's first character; 0 for text a transform created.
  uint32_t lineOf(TextRef Ref) const;
  /// 1-based column of Ref's first character; 0 for text a transform created.
  uint32_t columnOf(TextRef Ref) const;

  std::string_view source() const { return Source; }
  const std::string &fileName() const { return FileName; }

  std::span<const Operand> children(const Operand &Op) const {
    return {Operands.data() + Op.FirstChild, Op.NumChildren};
  }
  std::span<const Operand> operands(const Statement &S) const {
    return {Operands.data() + S.First, S.Count};
  }
  std::span<const Statement> body(const Function &F) const {
    return {Statements.data() + F.BodyBegin, F.BodyEnd - F.BodyBegin};
  }
  /// The instruction operands of S without its guard.
  std::span<const Operand> arguments(const Statement &S) const {
    auto All = operands(S);
    return (S.Flags & StatementHasGuard) ? All.subspan(1) : All;
  }

  std::vector<Item> Items;
  std::vector<Alias> Aliases;
  std::vector<Function> Functions;
  std::vector<VarDecl> Decls;
  std::vector<Statement> Statements;
  std::vector<Operand> Operands;

private:
  std::string Source;
  std::deque<std::string> Arena; ///< stable addresses: views never dangle
  std::string FileName;
  uint32_t SourceSize;
  mutable std::vector<uint32_t> LineStarts; ///< built on first lineOf()
};

/// The value of a PTX integer literal (decimal, 0x hex, 0b binary, octal,
/// optional U suffix); nullopt if it is not one or does not fit 64 bits.
std::optional<uint64_t> parseIntegerLiteral(std::string_view Text);

/// The value of an integer constant expression (PTX ISA "constant
/// expressions": literals, unary and binary operators, parentheses, the
/// (.s64)/(.u64) casts and ?:) as 64-bit two's complement, signed where
/// signedness matters; nullopt if Op is not one (a register, a symbol, a
/// float) or divides by zero.
std::optional<uint64_t> evaluateConstant(const Module &M, const Operand &Op);

/// Splits an opcode into its base and modifiers: "ld.global.f32" gives
/// "ld" and {".global", ".f32"}.
std::string_view opcodeBase(std::string_view Opcode);
bool hasModifier(std::string_view Opcode, std::string_view Modifier);

} // namespace baton::ptx

#endif // BATON_PTX_AST_H
