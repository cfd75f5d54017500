//===- Names.cpp - Names Baton generates ----------------------------------===//
#include "baton/Transform/Names.h"

namespace baton {

std::string freshPrefix(std::span<const std::string_view> Used) {
  auto Taken = [&](const std::string &Stem) {
    for (std::string_view Name : Used) {
      if (Name.starts_with('%') || Name.starts_with('$'))
        Name.remove_prefix(1);
      if (Name.starts_with(Stem))
        return true;
    }
    return false;
  };
  std::string Prefix(GeneratedStem);
  for (unsigned N = 0; Taken(Prefix + "_"); ++N)
    Prefix = std::string(GeneratedStem) + std::to_string(N);
  return Prefix;
}

} // namespace baton
