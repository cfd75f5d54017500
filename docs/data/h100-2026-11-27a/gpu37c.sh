#!/usr/bin/env bash
# Thirty-seventh session, call c (issue 6): the committed default (launches
# of blocks up to 20 us run as the originals once the device has been idle
# for a second, 84f4ebc) against it turned off
# (BATON_IDLE_ORIGINAL_BLOCKS_US=0), training alone, interleaved
# (route_threshold.py, three routed windows between unrouted ones); then
# the first request after 150 ms gaps (not idle: must match the old default).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-37
i=0
for v in default off default off; do
  left=$(( 540 - ($(date +%s)-t0) )); [ $left -gt 90 ] || break
  i=$((i+1))
  if [ $v = off ]; then export BATON_IDLE_ORIGINAL_BLOCKS_US=0; else unset BATON_IDLE_ORIGINAL_BLOCKS_US; fi
  timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 4 --repeat 3 > $L/rt-$i-$v.log 2>&1
  echo "rt $i $v rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'around' $L/rt-$i-$v.log | tr -s ' ')"
done
unset BATON_IDLE_ORIGINAL_BLOCKS_US
left=$(( 590 - ($(date +%s)-t0) ))
if [ $left -gt 40 ]; then
  timeout $left python3 bench/torch/quiet_first_request.py --graph --requests 30 > $L/q150-default.log 2>&1
  echo "q150 default rc=$? $(( $(date +%s)-t0 ))s: $(grep -E '^(gap|latency|device)' $L/q150-default.log | tr -s ' ' | tr '\n' ';')"
fi
cd $OUT && tar czf c.tgz c && rm -rf c
