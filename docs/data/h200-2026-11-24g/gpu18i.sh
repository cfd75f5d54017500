#!/usr/bin/env bash
# Eighteenth session: training alone with mm_t_* as slices, then as committed.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/i; mkdir -p $L
git log --oneline -1 > $L/commit.txt
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
timeout 330 python3 build-scratch/rts.py --scale large --thresholds 100 --seconds 5 > $L/rt-mm_t-slices.log 2>&1; echo "rt slices rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-mm_t-slices.log
left=$(( 590 - ($(date +%s)-t0) ))
timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-committed.log 2>&1; echo "rt committed rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-committed.log
cd $OUT && tar czf i.tgz i && rm -rf i
