//===- Error.h - Errors of the fatbin reader --------------------*- C++ -*-===//
//
// Fatbins come from files we did not build (framework libraries, downloads),
// so every malformed byte is a user error, not a bug: the reader reports it
// as a value naming the file and the byte offset where it went wrong, so a
// user can look at it with xxd, and never aborts.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_FATBIN_ERROR_H
#define BATON_FATBIN_ERROR_H

#include <cstdint>
#include <string>

namespace baton::fatbin {

struct Error {
  std::string File;
  uint64_t Offset = 0; ///< Byte offset in File where the problem was found.
  std::string Message;

  /// "FILE: error: offset 0xN: MESSAGE", the form every Baton tool prints.
  std::string str() const;
};

} // namespace baton::fatbin

#endif // BATON_FATBIN_ERROR_H
