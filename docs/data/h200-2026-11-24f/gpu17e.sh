#!/usr/bin/env bash
# Seventeenth session: PTB without needless drains: GPU tests, per-kernel time, steps/s alone.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/e; mkdir -p $L
git log --oneline -1 > $L/commit.txt
bash build-scratch/gpu16j.sh > $L/ctest-summary.txt 2>&1; tail -4 $L/ctest-summary.txt; cp $OUT/j/ctest.log $L/; rm -rf $OUT/j
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
timeout 250 python3 build-scratch/ktime.py --scale large > $L/ktime.log 2>&1; echo "ktime rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime.log | head -16
left=$(( 590 - ($(date +%s)-t0) ))
timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-large.log 2>&1; echo "rt rc=$? $(( $(date +%s)-t0 ))s"
tail -4 $L/rt-large.log
cd $OUT && tar czf e.tgz e && rm -rf e
