//===- baton/PTX/Parser.h - PTX text to AST ---------------------*- C++ -*-===//
//
// A recursive-descent parser for the PTX accepted by ptxas 13, as emitted by
// nvcc, clang and Triton: module directives, variables with initializers,
// .entry/.func with parameter lists and performance directives, nested scopes,
// labels, guarded instructions with any opcode (unknown opcodes are kept, not
// rejected), vector, address and call operands, debug .loc/.file lines and
// .section blocks. On malformed input it stops at the first error and reports
// "file:line:col: error: expected ..., found ...". It never recurses without
// bound: nesting deeper than a fixed limit is an error, not a stack overflow.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PTX_PARSER_H
#define BATON_PTX_PARSER_H

#include "baton/PTX/AST.h"
#include "baton/PTX/Diagnostic.h"

#include <memory>
#include <optional>
#include <string>

namespace baton::ptx {

struct ParseResult {
  std::unique_ptr<Module> Mod;   ///< set on success
  std::optional<Diagnostic> Error; ///< set on failure
};

/// Parses Source; FileName is used in diagnostics only.
ParseResult parseModule(std::string Source, std::string FileName);

/// Deepest nesting of { } scopes or of operand expressions accepted.
inline constexpr unsigned MaxNestingDepth = 256;

} // namespace baton::ptx

#endif // BATON_PTX_PARSER_H
