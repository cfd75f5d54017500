//===- baton/PTX/Printer.h - AST to PTX text --------------------*- C++ -*-===//
//
// Prints a Module in one canonical layout: one statement per line, a tab per
// scope level, operands separated by ", ". Comments are not kept; everything
// else is, so ptxas builds the same cubin from the printed text as from the
// input, and printing a parse of printed text reproduces it byte for byte.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PTX_PRINTER_H
#define BATON_PTX_PRINTER_H

#include "baton/PTX/AST.h"

#include <functional>
#include <string>
#include <string_view>

namespace baton::ptx {

/// Receives the printed text in chunks, in order.
using TextSink = std::function<void(std::string_view)>;

void printModule(const Module &M, const TextSink &Sink);
std::string printModule(const Module &M);

/// One operand as it is printed inside an instruction.
std::string printOperand(const Module &M, const Operand &Op);
/// One statement without indentation or line break.
std::string printStatement(const Module &M, const Statement &S);

} // namespace baton::ptx

#endif // BATON_PTX_PRINTER_H
