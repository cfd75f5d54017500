//===- StatementBuilder.cpp - Emit new PTX statements into a module -------===//
#include "StatementBuilder.h"

namespace baton::detail {

using namespace ptx;

TextRef StatementBuilder::text(std::string_view S) {
  auto [It, Inserted] = Interned.try_emplace(std::string(S));
  if (Inserted)
    It->second = M.intern(S);
  return It->second;
}

uint32_t StatementBuilder::append(std::span<const Operand> Ops) {
  // Ops may point into M.Operands itself, which insert may reallocate.
  std::vector<Operand> Copy(Ops.begin(), Ops.end());
  uint32_t First = static_cast<uint32_t>(M.Operands.size());
  M.Operands.insert(M.Operands.end(), Copy.begin(), Copy.end());
  return First;
}

Operand StatementBuilder::sym(std::string_view Name) {
  Operand Op;
  Op.Kind = OperandKind::Symbol;
  Op.Text = text(Name);
  return Op;
}

Operand StatementBuilder::sink() {
  Operand Op;
  Op.Kind = OperandKind::Sink;
  Op.Text = text("_");
  return Op;
}

Operand StatementBuilder::imm(int64_t Value) {
  Operand Op;
  Op.Kind = OperandKind::Integer;
  Op.Text = text(std::to_string(Value));
  return Op;
}

Operand StatementBuilder::address(const Operand &Base, int64_t Offset) {
  Operand Inner = Base;
  if (Offset != 0) {
    Operand Plus;
    Plus.Kind = OperandKind::Binary;
    Plus.Text = text("+");
    Operand Children[] = {Base, imm(Offset)};
    Plus.FirstChild = append(Children);
    Plus.NumChildren = 2;
    Inner = Plus;
  }
  Operand Addr;
  Addr.Kind = OperandKind::Address;
  Addr.FirstChild = append({&Inner, 1});
  Addr.NumChildren = 1;
  return Addr;
}

Operand StatementBuilder::vector(std::span<const Operand> Elements) {
  Operand V;
  V.Kind = OperandKind::Vector;
  V.FirstChild = append(Elements);
  V.NumChildren = static_cast<uint32_t>(Elements.size());
  return V;
}

Operand StatementBuilder::paren(std::span<const Operand> Elements) {
  Operand P = vector(Elements);
  P.Kind = OperandKind::Paren;
  return P;
}

Operand StatementBuilder::negated(const Operand &Predicate) {
  Operand Not;
  Not.Kind = OperandKind::Unary;
  Not.Text = text("!");
  Not.FirstChild = append({&Predicate, 1});
  Not.NumChildren = 1;
  return Not;
}

void StatementBuilder::instWithOperands(TextRef Opcode,
                                        std::span<const Operand> Ops,
                                        uint8_t Flags) {
  Statement S;
  S.Kind = StatementKind::Instruction;
  S.Text = Opcode;
  S.Flags = Flags;
  S.First = append(Ops);
  S.Count = static_cast<uint16_t>(Ops.size());
  Out.push_back(S);
}

void StatementBuilder::inst(std::string_view Opcode,
                            std::initializer_list<Operand> Args) {
  instWithOperands(text(Opcode), {Args.begin(), Args.size()}, 0);
}

void StatementBuilder::guarded(std::string_view Pred, bool Negated,
                               std::string_view Opcode,
                               std::initializer_list<Operand> Args) {
  std::vector<Operand> Ops;
  Operand Guard;
  Guard.Kind = OperandKind::Guard;
  Guard.Text = text(Pred);
  Guard.Flags = Negated ? OperandNegated : 0;
  Ops.push_back(Guard);
  Ops.insert(Ops.end(), Args.begin(), Args.end());
  instWithOperands(text(Opcode), Ops, StatementHasGuard);
}

void StatementBuilder::label(std::string_view Name) {
  Statement S;
  S.Kind = StatementKind::Label;
  S.Text = text(Name);
  Out.push_back(S);
}

void StatementBuilder::decl(std::string_view Space,
                            std::initializer_list<std::string_view> Qual,
                            std::span<const std::string> Names) {
  VarDecl D;
  D.Space = text(Space);
  for (std::string_view Q : Qual)
    D.Qualifiers.push_back(text(Q));
  for (const std::string &Name : Names) {
    DeclaredName N;
    size_t Bracket = Name.find_first_of("[<");
    N.Name = text(std::string_view(Name).substr(0, Bracket));
    if (Bracket != std::string::npos)
      N.Suffix = text(std::string_view(Name).substr(Bracket));
    D.Names.push_back(N);
  }
  Statement S;
  S.Kind = StatementKind::Decl;
  S.First = static_cast<uint32_t>(M.Decls.size());
  M.Decls.push_back(std::move(D));
  Out.push_back(S);
}

void StatementBuilder::blockBegin() {
  Statement S;
  S.Kind = StatementKind::BlockBegin;
  Out.push_back(S);
}

void StatementBuilder::blockEnd() {
  Statement S;
  S.Kind = StatementKind::BlockEnd;
  Out.push_back(S);
}

std::pair<uint32_t, uint32_t> StatementBuilder::commit() {
  uint32_t Begin = static_cast<uint32_t>(M.Statements.size());
  M.Statements.insert(M.Statements.end(), Out.begin(), Out.end());
  Out.clear();
  return {Begin, static_cast<uint32_t>(M.Statements.size())};
}

} // namespace baton::detail
