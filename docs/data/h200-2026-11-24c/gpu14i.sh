#!/usr/bin/env bash
# The strengthened vacate checks: exactly_once (half the SMs vacated for a
# whole launch) and variant_check (launches that finished with SMs vacated).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/i; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/cfg.log $L/build.log; exit 1; }
timeout 200 ctest --test-dir build-gpu -R 'variants_gpu|gpu\.exactly_once' -V > $L/ctest.log 2>&1
grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $L/ctest.log | tail -4
grep -E "vacate|vacated|^[0-9]+: FAIL" $L/ctest.log | head
echo "total $(( $(date +%s)-t0 ))s"
