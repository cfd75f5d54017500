//===- Report.h - What the interposer tells the user ------------*- C++ -*-===//
#ifndef BATON_LIB_PRELOAD_REPORT_H
#define BATON_LIB_PRELOAD_REPORT_H

#include <string>

namespace baton::preload {

/// BATON_VERBOSE is set: say how each kernel's launches are routed.
bool verbose();

/// Prints "baton-preload: <Message>" on stderr as one write, so that lines
/// of several threads do not interleave.
void report(const std::string &Message);

} // namespace baton::preload

#endif // BATON_LIB_PRELOAD_REPORT_H
