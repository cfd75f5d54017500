//===- AST.cpp - PTX module storage ---------------------------------------===//
#include "baton/PTX/AST.h"

#include <algorithm>
#include <charconv>

namespace baton::ptx {

Module::Module(std::string Src, std::string Name)
    : Source(std::move(Src)), FileName(std::move(Name)),
      SourceSize(static_cast<uint32_t>(Source.size())) {}

TextRef Module::intern(std::string_view S) {
  Arena.emplace_back(S);
  return TextRef{SourceSize + static_cast<uint32_t>(Arena.size() - 1),
                 static_cast<uint32_t>(S.size())};
}

uint32_t Module::lineOf(TextRef Ref) const {
  if (Ref.Offset >= SourceSize)
    return 0;
  if (LineStarts.empty()) { // built once, then each lookup is a binary search
    LineStarts.push_back(0);
    for (uint32_t I = 0; I < SourceSize; ++I)
      if (Source[I] == '\n')
        LineStarts.push_back(I + 1);
  }
  auto It = std::upper_bound(LineStarts.begin(), LineStarts.end(), Ref.Offset);
  return static_cast<uint32_t>(It - LineStarts.begin());
}

uint32_t Module::columnOf(TextRef Ref) const {
  uint32_t Line = lineOf(Ref);
  return Line ? Ref.Offset - LineStarts[Line - 1] + 1 : 0;
}

std::optional<uint64_t> parseIntegerLiteral(std::string_view Text) {
  if (!Text.empty() && (Text.back() == 'U' || Text.back() == 'u'))
    Text.remove_suffix(1);
  int Base = 10;
  if (Text.size() > 2 && Text[0] == '0' && (Text[1] == 'x' || Text[1] == 'X')) {
    Base = 16;
    Text.remove_prefix(2);
  } else if (Text.size() > 2 && Text[0] == '0' &&
             (Text[1] == 'b' || Text[1] == 'B')) {
    Base = 2;
    Text.remove_prefix(2);
  } else if (Text.size() > 1 && Text[0] == '0') {
    Base = 8;
    Text.remove_prefix(1);
  }
  uint64_t Value = 0;
  auto [Ptr, Ec] =
      std::from_chars(Text.data(), Text.data() + Text.size(), Value, Base);
  if (Ec != std::errc() || Ptr != Text.data() + Text.size() || Text.empty())
    return std::nullopt;
  return Value;
}

std::optional<uint64_t> evaluateConstant(const Module &M, const Operand &Op) {
  auto Children = M.children(Op);
  std::string_view T = M.text(Op.Text);
  switch (Op.Kind) {
  case OperandKind::Integer:
    return parseIntegerLiteral(T);
  case OperandKind::Paren:
    return Children.size() == 1 ? evaluateConstant(M, Children[0])
                                : std::nullopt;
  case OperandKind::Cast: // both casts keep the 64 bits
    return evaluateConstant(M, Children[0]);
  case OperandKind::Conditional: {
    auto C = evaluateConstant(M, Children[0]);
    return C ? evaluateConstant(M, Children[*C ? 1 : 2]) : std::nullopt;
  }
  case OperandKind::Unary: {
    auto V = evaluateConstant(M, Children[0]);
    if (!V)
      return std::nullopt;
    if (T == "-")
      return 0 - *V;
    if (T == "~")
      return ~*V;
    return uint64_t(*V == 0); // !
  }
  case OperandKind::Binary: {
    auto L = evaluateConstant(M, Children[0]);
    auto R = evaluateConstant(M, Children[1]);
    if (!L || !R)
      return std::nullopt;
    uint64_t A = *L, B = *R;
    auto SA = static_cast<int64_t>(A), SB = static_cast<int64_t>(B);
    if (T == "+") return A + B;
    if (T == "-") return A - B;
    if (T == "*") return A * B;
    if (T == "/" || T == "%") {
      if (B == 0 || (SA == INT64_MIN && SB == -1))
        return std::nullopt;
      return static_cast<uint64_t>(T == "/" ? SA / SB : SA % SB);
    }
    if (T == "<<") return B < 64 ? A << B : 0;
    if (T == ">>") return static_cast<uint64_t>(SA >> (B < 64 ? B : 63));
    if (T == "&") return A & B;
    if (T == "|") return A | B;
    if (T == "^") return A ^ B;
    if (T == "&&") return uint64_t(A && B);
    if (T == "||") return uint64_t(A || B);
    if (T == "==") return uint64_t(A == B);
    if (T == "!=") return uint64_t(A != B);
    if (T == "<") return uint64_t(SA < SB);
    if (T == ">") return uint64_t(SA > SB);
    if (T == "<=") return uint64_t(SA <= SB);
    if (T == ">=") return uint64_t(SA >= SB);
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

std::string_view opcodeBase(std::string_view Opcode) {
  return Opcode.substr(0, Opcode.find('.'));
}

bool hasModifier(std::string_view Opcode, std::string_view Modifier) {
  size_t Pos = Opcode.find('.');
  while (Pos != std::string_view::npos) {
    size_t End = Opcode.find('.', Pos + 1);
    if (Opcode.substr(Pos, End - Pos) == Modifier)
      return true;
    Pos = End;
  }
  return false;
}

} // namespace baton::ptx
