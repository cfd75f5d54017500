//===- StatementBuilder.h - Emit new PTX statements into a module ---------===//
//
// Variants are built as new statement sequences: statements copied from the
// original body (sharing their operands, which are immutable) interleaved
// with statements made here. Text for new names goes into the module arena,
// once per distinct string.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_TRANSFORM_STATEMENTBUILDER_H
#define BATON_LIB_TRANSFORM_STATEMENTBUILDER_H

#include "baton/PTX/AST.h"

#include <initializer_list>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace baton::detail {

class StatementBuilder {
public:
  explicit StatementBuilder(ptx::Module &M) : M(M) {}

  ptx::Module &module() { return M; }
  ptx::TextRef text(std::string_view S);

  ptx::Operand sym(std::string_view Name);
  ptx::Operand imm(int64_t Value);
  /// The sink `_`, in a vector operand's place for a lane nobody reads.
  ptx::Operand sink();
  /// [Base] or [Base+Offset].
  ptx::Operand address(const ptx::Operand &Base, int64_t Offset = 0);
  ptx::Operand vector(std::span<const ptx::Operand> Elements);
  ptx::Operand paren(std::span<const ptx::Operand> Elements);
  ptx::Operand negated(const ptx::Operand &Predicate);

  void inst(std::string_view Opcode, std::initializer_list<ptx::Operand> Args);
  /// @Pred Opcode Args;  (@!Pred when Negated)
  void guarded(std::string_view Pred, bool Negated, std::string_view Opcode,
               std::initializer_list<ptx::Operand> Args);
  /// An instruction from an operand list that already holds any guard.
  void instWithOperands(ptx::TextRef Opcode, std::span<const ptx::Operand> Ops,
                        uint8_t Flags);
  void label(std::string_view Name);
  /// `Space Type Name, Name...;` e.g. decl(".reg", {".b32"}, {"%a", "%b"}).
  void decl(std::string_view Space, std::initializer_list<std::string_view> Qual,
            std::span<const std::string> Names);
  void blockBegin();
  void blockEnd();
  void copy(const ptx::Statement &S) { Out.push_back(S); }
  /// A directive inside the body (`.pragma "s";`), printed as \p Text.
  void directive(std::string_view Text) {
    Out.push_back(ptx::Statement{text(Text), 0, 0,
                                 ptx::StatementKind::Directive, 0});
  }

  /// Appends the statements built so far to the module; returns their range.
  std::pair<uint32_t, uint32_t> commit();

private:
  uint32_t append(std::span<const ptx::Operand> Ops);

  ptx::Module &M;
  std::vector<ptx::Statement> Out;
  std::unordered_map<std::string, ptx::TextRef> Interned;
};

} // namespace baton::detail

#endif // BATON_LIB_TRANSFORM_STATEMENTBUILDER_H
