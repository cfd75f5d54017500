//===- FuzzChecks.h - Properties the fuzzers check ------------------------===//
//
// Each check returns an empty string when the property holds, else what went
// wrong. The libFuzzer targets abort on a failure; the unit tests run the
// same checks over every saved fuzz regression input.
//
//===----------------------------------------------------------------------===//
#ifndef BATON_TEST_FUZZ_FUZZCHECKS_H
#define BATON_TEST_FUZZ_FUZZCHECKS_H

#include "baton/PTX/Parser.h"
#include "baton/PTX/Printer.h"
#include "baton/Transform/Transform.h"

#include <string>

namespace baton::fuzz {

/// Any input parses or gets an error with a location.
inline std::string checkParse(const std::string &Input) {
  auto R = ptx::parseModule(Input, "fuzz.ptx");
  if (!R.Mod && !R.Error)
    return "neither a module nor an error";
  if (R.Error && R.Error->Line == 0)
    return "error without a location: " + R.Error->str();
  return "";
}

/// print(parse(x)) parses again and prints identically.
inline std::string checkRoundTrip(const std::string &Input) {
  auto R = ptx::parseModule(Input, "fuzz.ptx");
  if (!R.Mod)
    return "";
  std::string Once = ptx::printModule(*R.Mod);
  auto Again = ptx::parseModule(Once, "printed.ptx");
  if (!Again.Mod)
    return "printed text does not parse: " + Again.Error->str();
  if (ptx::printModule(*Again.Mod) != Once)
    return "print(parse(print(parse(x)))) differs from print(parse(x))";
  return "";
}

/// The transformed module prints to text that parses and is a fixed point.
inline std::string checkTransform(const std::string &Input) {
  auto R = ptx::parseModule(Input, "fuzz.ptx");
  if (!R.Mod)
    return "";
  transformModule(*R.Mod, {});
  std::string Out = ptx::printModule(*R.Mod);
  auto Again = ptx::parseModule(Out, "transformed.ptx");
  if (!Again.Mod)
    return "transformed text does not parse: " + Again.Error->str();
  if (ptx::printModule(*Again.Mod) != Out)
    return "transformed text is not a printing fixed point";
  return "";
}

} // namespace baton::fuzz

#endif // BATON_TEST_FUZZ_FUZZCHECKS_H
