//===- Error.h - The one exception type of the sharing library --*- C++ -*-===//
//
// Everything inside lib/Share throws Failure; the C API (CApi.cpp) turns it
// into the status and the per-thread message of baton/share.h.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_SHARE_ERROR_H
#define BATON_LIB_SHARE_ERROR_H

#include "baton/share.h"

#include <stdexcept>
#include <string>

namespace baton::share {

class Failure : public std::runtime_error {
public:
  Failure(baton_share_status Status, const std::string &Message)
      : std::runtime_error(Message), Status(Status) {}
  baton_share_status status() const { return Status; }

private:
  baton_share_status Status;
};

/// Failure(BATON_SHARE_ERROR_SYSTEM) for a failed system call: "\p What: "
/// and errno's text.
[[noreturn]] void throwErrno(const std::string &What);

} // namespace baton::share

#endif // BATON_LIB_SHARE_ERROR_H
