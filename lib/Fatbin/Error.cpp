//===- Error.cpp - Errors of the fatbin reader ----------------------------===//
#include "baton/Fatbin/Error.h"

#include "ByteReader.h"

using namespace baton::fatbin;

std::string Error::str() const {
  return File + ": error: offset " + hex(Offset) + ": " + Message;
}
