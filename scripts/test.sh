#!/usr/bin/env bash
# The test command (README): installs missing dependencies, builds, and runs
# every test through ctest (GoogleTest unit tests, the lit suite, and GPU
# tests, which skip with a message where there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=${BATON_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${BATON_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
