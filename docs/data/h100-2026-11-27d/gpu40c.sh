#!/usr/bin/env bash
# Fortieth session, call c, on call b's machine: variants_gpu.equivalence
# hung in calls a and b (after 81 of 92 tests, none failed). Each calls.cu
# manifest line alone under variant_check with a timeout, then the rest of
# the GPU tests without it.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
X=build-gpu/test/variants-gpu/xformed
grep -E '^(nvcc|clang|clang-plugin)/calls\.ptx' test/corpus/manifest.txt | while read -r line; do
  echo "$line" > $L/one.txt
  timeout 25 build-gpu/test/variants-gpu/variant_check $X $L/one.txt > $L/one.log 2>&1; rc=$?
  echo "rc=$rc $(echo $line | cut -d' ' -f1,2) | $(tail -2 $L/one.log | tr '\n' ' ' | cut -c1-200)"
done | tee $L/lines.txt
timeout $(( 560 - ($(date +%s)-t0) )) ctest --test-dir build-gpu -R 'gpu\.|python' -E 'preload|variants_gpu' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
gzip -f $L/ctest.log
cd $OUT && tar czf c.tgz c && rm -rf c
