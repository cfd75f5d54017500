//===- Printer.cpp - AST to PTX text --------------------------------------===//
#include "baton/PTX/Printer.h"

namespace baton::ptx {
namespace {

/// Buffers output and hands it to the sink in large chunks.
class Writer {
public:
  explicit Writer(const TextSink &Sink) : Sink(Sink) { Buf.reserve(Chunk); }
  ~Writer() { flush(); }
  Writer &operator<<(std::string_view S) {
    Buf.append(S);
    if (Buf.size() >= Chunk)
      flush();
    return *this;
  }
  Writer &operator<<(char C) {
    Buf.push_back(C);
    return *this;
  }
  void flush() {
    if (!Buf.empty())
      Sink(Buf);
    Buf.clear();
  }

private:
  static constexpr size_t Chunk = 1 << 16;
  const TextSink &Sink;
  std::string Buf;
};

class ModulePrinter {
public:
  ModulePrinter(const Module &M, Writer &W) : M(M), W(W) {}

  void printModule();
  void printOperand(const Operand &Op);
  void printStatement(const Statement &S);

private:
  void printTexts(const std::vector<TextRef> &Refs) {
    for (size_t I = 0; I < Refs.size(); ++I) {
      if (I)
        W << ' ';
      W << M.text(Refs[I]);
    }
  }
  void printList(std::span<const Operand> Ops) {
    for (size_t I = 0; I < Ops.size(); ++I) {
      if (I)
        W << ", ";
      printOperand(Ops[I]);
    }
  }
  void printParam(const Param &P);
  void printParamList(const std::vector<Param> &Params);
  void printDecl(const VarDecl &D);
  void printFunction(const Function &F);

  const Module &M;
  Writer &W;
};

void ModulePrinter::printOperand(const Operand &Op) {
  auto Children = M.children(Op);
  switch (Op.Kind) {
  case OperandKind::Vector:
    W << '{';
    printList(Children);
    W << '}';
    return;
  case OperandKind::Address:
    W << '[';
    printList(Children);
    W << ']';
    return;
  case OperandKind::Paren:
    W << '(';
    printList(Children);
    W << ')';
    return;
  case OperandKind::Apply:
    W << M.text(Op.Text) << '(';
    printList(Children);
    W << ')';
    return;
  case OperandKind::Element:
    printOperand(Children[0]);
    W << '[';
    printOperand(Children[1]);
    W << ']';
    return;
  case OperandKind::Unary:
    W << M.text(Op.Text);
    printOperand(Children[0]);
    return;
  case OperandKind::Binary:
    printOperand(Children[0]);
    // "a%b" would lex back as "a" and the register "%b": spell it "a % b".
    if (M.text(Op.Text) == "%")
      W << " % ";
    else
      W << M.text(Op.Text);
    printOperand(Children[1]);
    return;
  case OperandKind::Cast:
    W << '(' << M.text(Op.Text) << ')';
    printOperand(Children[0]);
    return;
  case OperandKind::Conditional:
    printOperand(Children[0]);
    W << " ? ";
    printOperand(Children[1]);
    W << " : ";
    printOperand(Children[2]);
    return;
  case OperandKind::Field:
    W << M.text(Op.Text) << " = ";
    printOperand(Children[0]);
    return;
  case OperandKind::Guard:
    W << '@';
    if (Op.Flags & OperandNegated)
      W << '!';
    W << M.text(Op.Text);
    return;
  default:
    W << M.text(Op.Text);
    return;
  }
}

void ModulePrinter::printStatement(const Statement &S) {
  switch (S.Kind) {
  case StatementKind::Instruction: {
    auto Ops = M.operands(S);
    if (S.Flags & StatementHasGuard) {
      printOperand(Ops[0]);
      W << ' ';
      Ops = Ops.subspan(1);
    }
    W << M.text(S.Text);
    if (!Ops.empty()) {
      W << ' ';
      printList(Ops);
    }
    W << ';';
    return;
  }
  case StatementKind::Label:
    W << M.text(S.Text) << ':';
    return;
  case StatementKind::Decl:
    printDecl(M.Decls[S.First]);
    return;
  case StatementKind::Directive:
    W << M.text(S.Text);
    return;
  case StatementKind::BlockBegin:
    W << '{';
    return;
  case StatementKind::BlockEnd:
    W << '}';
    return;
  }
}

void ModulePrinter::printDecl(const VarDecl &D) {
  for (TextRef L : D.Linkage)
    W << M.text(L) << ' ';
  W << M.text(D.Space);
  if (!D.Qualifiers.empty()) {
    W << ' ';
    printTexts(D.Qualifiers);
  }
  for (size_t I = 0; I < D.Names.size(); ++I) {
    const DeclaredName &N = D.Names[I];
    W << (I ? ", " : " ") << M.text(N.Name) << M.text(N.Suffix);
    if (N.Init) {
      W << " = ";
      printOperand(M.Operands[*N.Init]);
    }
  }
  W << ';';
}

void ModulePrinter::printParam(const Param &P) {
  printTexts(P.Qualifiers);
  W << ' ' << M.text(P.Name) << M.text(P.Suffix);
}

void ModulePrinter::printParamList(const std::vector<Param> &Params) {
  if (Params.empty()) {
    W << "()";
    return;
  }
  W << "(\n";
  for (size_t I = 0; I < Params.size(); ++I) {
    W << '\t';
    printParam(Params[I]);
    W << (I + 1 < Params.size() ? ",\n" : "\n");
  }
  W << ')';
}

void ModulePrinter::printFunction(const Function &F) {
  for (TextRef L : F.Linkage)
    W << M.text(L) << ' ';
  W << (F.IsEntry ? ".entry " : ".func ");
  if (F.HasReturnList) {
    W << '(';
    for (size_t I = 0; I < F.Returns.size(); ++I) {
      if (I)
        W << ", ";
      printParam(F.Returns[I]);
    }
    W << ") ";
  }
  W << M.text(F.Name);
  if (F.HasParamList)
    printParamList(F.Params);
  W << '\n';
  for (const FunctionDirective &D : F.Directives) {
    W << M.text(D.Name);
    for (size_t I = 0; I < D.Values.size(); ++I)
      W << (I ? ", " : " ") << M.text(D.Values[I]);
    if (M.text(D.Name) == ".pragma")
      W << ';';
    W << '\n';
  }
  if (!F.HasBody) {
    W << ";\n";
    return;
  }
  W << "{\n";
  unsigned Depth = 1;
  for (const Statement &S : M.body(F)) {
    if (S.Kind == StatementKind::BlockEnd)
      --Depth;
    // Labels stand one level out, as compilers print them.
    unsigned Indent = S.Kind == StatementKind::Label ? Depth - 1 : Depth;
    for (unsigned I = 0; I < Indent; ++I)
      W << '\t';
    printStatement(S);
    W << '\n';
    if (S.Kind == StatementKind::BlockBegin)
      ++Depth;
  }
  W << "}\n";
}

void ModulePrinter::printModule() {
  ItemKind Previous = ItemKind::Directive;
  bool First = true;
  for (const Item &I : M.Items) {
    // A blank line before each function and between groups of items.
    if (!First && (I.Kind == ItemKind::Function || I.Kind != Previous))
      W << '\n';
    First = false;
    Previous = I.Kind;
    switch (I.Kind) {
    case ItemKind::Directive:
    case ItemKind::Section:
      W << M.text(I.Text) << '\n';
      break;
    case ItemKind::Variable:
      printDecl(M.Decls[I.Index]);
      W << '\n';
      break;
    case ItemKind::Function:
      printFunction(M.Functions[I.Index]);
      break;
    }
  }
}

} // namespace

void printModule(const Module &M, const TextSink &Sink) {
  Writer W(Sink);
  ModulePrinter(M, W).printModule();
}

std::string printModule(const Module &M) {
  std::string Out;
  printModule(M, [&](std::string_view S) { Out.append(S); });
  return Out;
}

std::string printOperand(const Module &M, const Operand &Op) {
  std::string Out;
  {
    TextSink Sink = [&](std::string_view S) { Out.append(S); };
    Writer W(Sink);
    ModulePrinter(M, W).printOperand(Op);
  }
  return Out;
}

std::string printStatement(const Module &M, const Statement &S) {
  std::string Out;
  {
    TextSink Sink = [&](std::string_view S) { Out.append(S); };
    Writer W(Sink);
    ModulePrinter(M, W).printStatement(S);
  }
  return Out;
}

} // namespace baton::ptx
