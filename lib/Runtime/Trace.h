//===- Trace.h - Scheduling trace for debugging (BATON_TRACE=1) -*- C++ -*-===//
//
// With BATON_TRACE set in the environment, the scheduler's executor and
// service print one line per decision they carry out (launch, pause,
// resume, completion, failure) to stderr, with a timestamp in microseconds.
// Off, a trace point costs one predictable branch. With BATON_TRACE_FILE
// set too, the lines go to that file instead, fully buffered: a write to
// stderr, often a pipe, may block the thread for tens of microseconds once
// its reader falls behind (seen on the H200, docs/benchmarks.md, sixtieth
// session), and the trace would then show delays it made itself.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_LIB_RUNTIME_TRACE_H
#define BATON_LIB_RUNTIME_TRACE_H

namespace baton::detail {

bool tracing();
/// printf-style; prefixes "baton-trace <us>: " and appends a newline.
[[gnu::format(printf, 1, 2)]] void trace(const char *Format, ...);

} // namespace baton::detail

#define BATON_TRACE(...)                                                       \
  do {                                                                         \
    if (::baton::detail::tracing())                                            \
      ::baton::detail::trace(__VA_ARGS__);                                     \
  } while (false)

#endif // BATON_LIB_RUNTIME_TRACE_H
