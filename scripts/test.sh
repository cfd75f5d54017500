#!/usr/bin/env bash
# The test command (README): installs missing dependencies, builds, and runs
# every test through ctest (GoogleTest unit tests, the lit suite, and GPU
# tests, which skip with a message where there is no GPU), then runs the
# suite again in an ASan + UBSan build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=${BATON_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${BATON_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"

# The same suite again under AddressSanitizer and UBSan (set
# BATON_SKIP_SANITIZE=1 to skip it locally).
if [[ -z ${BATON_SKIP_SANITIZE:-} ]]; then
  echo "== the test suite under ASan + UBSan"
  cmake -S . -B "$build-asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBATON_SANITIZE=ON -DBATON_ENABLE_LLVM=OFF ${BATON_CMAKE_ARGS:-}
  cmake --build "$build-asan" -j "$(nproc)"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$build-asan" --output-on-failure -j "$(nproc)"
fi
