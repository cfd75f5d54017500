//===- Preload.cpp - Start-up of libbaton_preload.so ----------------------===//
//
// Runs when the library is loaded (LD_PRELOAD: before the program's own
// constructors and its first CUDA call), so that the driver settings
// scheduling needs are in the environment before the driver reads it.
//
//===----------------------------------------------------------------------===//
#include "Interposer.h"

namespace {

[[gnu::constructor]] void start() {
  baton::preload::Interposer::startFromEnvironment();
}

} // namespace
