//===- Lease.h - The lease of latency-critical work ------------*- C++ -*-===//
//
// LC work that makes no progress for the lease stops holding best-effort
// work back: another process's, in the registry (share.h), and a bracket of
// this process's scheduler (LaunchRouter). Both read it here.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_SHARE_LEASE_H
#define BATON_LIB_SHARE_LEASE_H

#include <chrono>

namespace baton::share {

/// BATON_SHARE_LEASE_MS: 1 to 3,600,000 ms; unset, the default (1 s);
/// anything else, the default, with a word on stderr.
std::chrono::milliseconds leaseFromEnvironment();

} // namespace baton::share

#endif // BATON_LIB_SHARE_LEASE_H
