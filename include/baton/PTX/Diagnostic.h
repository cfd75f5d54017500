//===- baton/PTX/Diagnostic.h - Located error and warning messages -*- C++ -*-//
//
// Every user-facing message of the PTX tools has the compiler form
// "file:line:col: severity: message" so editors and CI logs can jump to it.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_PTX_DIAGNOSTIC_H
#define BATON_PTX_DIAGNOSTIC_H

#include <cstdint>
#include <string>

namespace baton::ptx {

enum class Severity { Error, Warning };

struct Diagnostic {
  Severity Level = Severity::Error;
  std::string File;
  uint32_t Line = 0;   ///< 1-based; 0 when the message has no location
  uint32_t Column = 0; ///< 1-based; 0 when only the line is known
  std::string Message;

  /// "file:line:col: error: message" (fields that are unknown are left out).
  std::string str() const;
};

} // namespace baton::ptx

#endif // BATON_PTX_DIAGNOSTIC_H
