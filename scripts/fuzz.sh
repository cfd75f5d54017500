#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-22 (ASan + UBSan) and runs one of
# them, seeded with the test corpus and the lit inputs.
#   scripts/fuzz.sh Parse|RoundTrip|Transform SECONDS [JOBS]
# New crashing inputs land in build-fuzz/crashes/; copy each into
# test/fuzz/regressions/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?Parse, RoundTrip or Transform}
seconds=${2:-60}
jobs=${3:-1}
build=build-fuzz
CC=clang-22 CXX=clang++-22 cmake -S . -B $build -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBATON_ENABLE_LLVM=OFF \
  -DBATON_ENABLE_RUNTIME=OFF -DBATON_SANITIZE=ON -DBATON_FUZZ=ON >/dev/null
cmake --build $build --target ${target}Fuzzer >/dev/null
corpus=$build/corpus/$target
mkdir -p "$corpus" $build/crashes
if [[ -z $(ls -A "$corpus") ]]; then
  cp test/corpus/*/*.ptx test/PTX/*.ptx test/PTX/Inputs/*.ptx \
     test/fuzz/regressions/*.ptx "$corpus"/ 2>/dev/null || true
fi
$build/test/fuzz/${target}Fuzzer "$corpus" -max_total_time="$seconds" \
  -max_len=65536 -timeout=10 -rss_limit_mb=4096 -jobs="$jobs" -workers="$jobs" \
  -artifact_prefix=$build/crashes/ -print_final_stats=1
