#!/usr/bin/env bash
# Twentieth session: PTB for reduction barriers and the refined divergence analysis. GPU tests (variants_gpu compares every corpus kernel under storms).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/c; mkdir -p $L
git log --oneline -1 > $L/commit.txt; git diff --stat > $L/diffstat.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
(cd build-gpu && timeout 300 ctest -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "tests passed|\*\*\*Failed" $L/ctest.log | tail -4
cp build-gpu/Testing/Temporary/LastTest.log $L/LastTest.log
grep -E "syncthreads|kernel checks|runs of the harness|passed, .* failed" $L/LastTest.log | head -30
gzip -9 $L/LastTest.log; rm -f $L/build.log
