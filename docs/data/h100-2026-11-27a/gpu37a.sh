#!/usr/bin/env bash
# Thirty-seventh session, call a (issue 6): training alone under baton.torch
# with launches of short blocks run as the originals while quiet
# (BATON_QUIET_ORIGINAL_BLOCKS_US, SchedulerOptions::
# OriginalsWhenQuietWithBlocksUpTo): route_threshold.py with three routed
# windows between unrouted ones in each process, off / 20 us / 50 us.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-37
i=0
for us in 0 20 50 0 20 50; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 90 ] || break
  i=$((i+1))
  BATON_QUIET_ORIGINAL_BLOCKS_US=$us timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 4 --repeat 3 > $L/rt-$i-$us.log 2>&1
  echo "rt $i $us rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'around' $L/rt-$i-$us.log | tr -s ' ')"
done
cd $OUT && tar czf a.tgz a && rm -rf a
