//===- baton/Transform/Report.h - JSON report of a transform ----*- C++ -*-===//
#ifndef BATON_TRANSFORM_REPORT_H
#define BATON_TRANSFORM_REPORT_H

#include "baton/Transform/Transform.h"

#include <string>

namespace baton {

/// The --report document: per kernel, the variants made or the refusals with
/// kind, construct and location, and the kernel's static facts.
std::string reportToJson(const TransformResult &R, std::string_view Input);

} // namespace baton

#endif // BATON_TRANSFORM_REPORT_H
