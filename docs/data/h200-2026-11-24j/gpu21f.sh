#!/usr/bin/env bash
# Twenty-first session: PTB loop state out of registers (claim in shared memory, task fields reloaded). GPU tests, per-kernel time, training alone.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/f; mkdir -p $L
git log --oneline -1 > $L/commit.txt; git diff > $L/diff.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
(cd build-gpu && timeout 200 ctest -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "tests passed|\*\*\*Failed|Failed|Passed" $L/ctest.log | tail -16
cp build-gpu/Testing/Temporary/LastTest.log $L/LastTest.log; gzip -f $L/LastTest.log
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-21f
timeout 260 python3 build-scratch/ktime.py --scale large > $L/ktime.log 2>&1; echo "ktime rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime.log | head -16
for i in 1 2; do
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 60 ] || break
timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-$i.log 2>&1; echo "rt $i rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-$i.log
done
rm -f $L/build.log $L/tbuild.log
