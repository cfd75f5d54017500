#!/usr/bin/env bash
# Twentieth session: the finalize kernel as a programmatic dependent launch. GPU tests, training alone A/B.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/b; mkdir -p $L
git log --oneline -1 > $L/commit.txt; git diff --stat > $L/diffstat.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
(cd build-gpu && timeout 200 ctest -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "tests passed|\*\*\*Failed" $L/ctest.log | tail -4
grep -h "plain finalize\|passed, .* failed" build-gpu/Testing/Temporary/LastTest.log | head -20 > $L/exactly_once-summary.txt; cat $L/exactly_once-summary.txt | head -8
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-20
for i in 1 2; do for d in 1 0; do
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 70 ] || break
BATON_DEPENDENT_FINALIZE=$d timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-d$d-$i.log 2>&1; echo "rt dependent=$d $i rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-d$d-$i.log
done; done
rm -f $L/build.log
