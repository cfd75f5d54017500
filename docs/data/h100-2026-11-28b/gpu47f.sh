#!/usr/bin/env bash
# Forty-seventh session, call f: training alone, the large CNN, routed
# (kernels of 100 us or more) against unrouted windows (route_threshold.py),
# on a9a7c92 (first shares for launches issued paused), two processes as
# time allows.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-f
for i in 1 2; do
  left=$(( 270 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  timeout $left python3 bench/torch/route_threshold.py --train cnn --scale large --thresholds 100 --seconds 4 --repeat 3 > $L/rt-$i.log 2>&1
  echo "rt $i rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'around' $L/rt-$i.log | tr -s ' ')"
done
cd $OUT && tar czf f.tgz f && rm -rf f
