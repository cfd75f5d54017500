#!/usr/bin/env bash
# Thirty-seventh session, call e (issue 6): the CNN training alone under
# baton.torch, the default (84f4ebc: launches of blocks up to 20 us run as
# the originals once idle) against BATON_IDLE_ORIGINAL_BLOCKS_US=0,
# interleaved (route_threshold.py, three routed windows between unrouted
# ones).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-37
i=0
for v in off default off default; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 100 ] || break
  i=$((i+1))
  if [ $v = off ]; then export BATON_IDLE_ORIGINAL_BLOCKS_US=0; else unset BATON_IDLE_ORIGINAL_BLOCKS_US; fi
  timeout $left python3 bench/torch/route_threshold.py --train cnn --scale large --thresholds 100 --seconds 4 --repeat 3 > $L/rt-$i-$v.log 2>&1
  echo "rt $i $v rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'around' $L/rt-$i-$v.log | tr -s ' ')"
done
cd $OUT && tar czf e.tgz e && rm -rf e
