#!/usr/bin/env bash
# Thirty-seventh session, call b (issue 6): what the first latency-critical
# request after a quiet spell pays when launches of short blocks run as the
# originals while quiet: quiet_first_request.py --graph (bert replayed from
# a CUDA graph on a high-priority stream in a bracket, device time from
# events on its stream), requests 150 ms apart beside the large GPT, with
# BATON_QUIET_ORIGINAL_BLOCKS_US off / 20 / 50, interleaved, and with no
# training.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-37
i=0
for us in none 0 20 50 0 20 50; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 45 ] || break
  i=$((i+1))
  if [ $us = none ]; then
    timeout $left python3 bench/torch/quiet_first_request.py --graph --requests 30 --no-training > $L/q$i-none.log 2>&1
  else
    BATON_QUIET_ORIGINAL_BLOCKS_US=$us timeout $left python3 bench/torch/quiet_first_request.py --graph --requests 30 > $L/q$i-$us.log 2>&1
  fi
  echo "$i $us rc=$? $(( $(date +%s)-t0 ))s: $(grep -E '^(gap|latency|device|train)' $L/q$i-$us.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf b.tgz b && rm -rf b
