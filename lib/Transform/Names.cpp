//===- Names.cpp - Names Baton generates ----------------------------------===//
#include "baton/Transform/Names.h"

namespace baton {

std::string freshPrefix(std::string_view Text) {
  std::string Prefix(GeneratedStem);
  for (unsigned N = 0; Text.find(Prefix + "_") != std::string_view::npos; ++N)
    Prefix = std::string(GeneratedStem) + std::to_string(N);
  return Prefix;
}

} // namespace baton
