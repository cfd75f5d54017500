//===- Diagnostic.cpp - Located error and warning messages ----------------===//
#include "baton/PTX/Diagnostic.h"

namespace baton::ptx {

std::string Diagnostic::str() const {
  std::string S;
  if (!File.empty())
    S += File + ":";
  if (Line) {
    S += std::to_string(Line) + ":";
    if (Column)
      S += std::to_string(Column) + ":";
  }
  if (!S.empty())
    S += " ";
  switch (Level) {
  case Severity::Error:
    S += "error: ";
    break;
  case Severity::Warning:
    S += "warning: ";
    break;
  }
  return S + Message;
}

} // namespace baton::ptx
