#!/usr/bin/env bash
# Fifty-sixth session, call c (an H200): the GPU tests with slices whose range
# check reads the grid (so ptxas keeps the grid's loads before the exit: one
# round trip to the task), then the MLP step's slices before the change
# (old/), after it (guard/) and with no task read at all (floor/, see
# gpu56b.sh), four
# interleaved rounds; then the corpus and Triton kernels through baton-ptx
# before (build-xformed-old, baton-ptx at 4e8a4df) and after
# (build-xformed-guard), two interleaved rounds.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; D=$R/docs/data/h200-2026-11-28k; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' -E 'gpu\.preload|gpu\.torch' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
grep -E "[0-9]+ passed, [0-9]+ failed" $L/ctest.log | head -12
gzip -f $L/ctest.log
for r in 1 2 3 4; do
  for v in old guard floor; do
    timeout 60 build-gpu/bench/variant_overhead $D/$v bench/manifests/colocation-mlp.txt > $L/mlp-$v$r.txt 2>&1
  done
done
echo "mlp done $(( $(date +%s)-t0 ))s"
for v in old guard floor; do
  echo "== $v"
  for r in 1 2 3 4; do
    awk '/^mlp\//{printf "%s %s ", substr($2,20,10), $6}' $L/mlp-$v$r.txt; echo
  done
done | tee $L/mlp-summary.txt
tar xzf build-xformed.tgz
M="test/variants-gpu/kernels/manifest.txt test/corpus/manifest.txt test/corpus/triton-manifest.txt"
for r in 1 2; do
  for v in old guard; do
    left=$(( 580 - ($(date +%s)-t0) )); [ $left -gt 30 ] || { echo "no time for $v$r"; break 2; }
    timeout $(( left < 150 ? left : 150 )) build-gpu/bench/variant_overhead build-xformed-$v $M > $L/corpus-$v$r.txt 2>&1
    echo "corpus $v$r rc=$? $(( $(date +%s)-t0 ))s"; grep 'geometric' $L/corpus-$v$r.txt
  done
done
cd $OUT && tar czf c.tgz c && rm -rf c
