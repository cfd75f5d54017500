#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
L=$OUT/h; mkdir -p $L
git diff --stat > $L/diffstat.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
(cd build-gpu && timeout 250 ctest -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$?"
grep -E "tests passed|\*\*\*Failed" $L/ctest.log | tail -4
grep -h "original instead" build-gpu/Testing/Temporary/LastTest.log
rm $L/build.log
