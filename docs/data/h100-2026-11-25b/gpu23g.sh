#!/usr/bin/env bash
# Twenty-third session, call g: training alone (issue 6) against the work per
# PTB claim (BATON_CLAIM_INTERVAL_US; default 20 us), interleaved.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/g; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$PWD/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
i=0
for v in 20 100 60 20 100 60; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  i=$((i+1))
  BATON_CLAIM_INTERVAL_US=$v PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-23 timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-$i-ci$v.log 2>&1
  echo "rt $i ci=$v rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt-$i-ci$v.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf g.tgz g && rm -rf g
