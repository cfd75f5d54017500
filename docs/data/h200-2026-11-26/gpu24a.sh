#!/usr/bin/env bash
# Twenty-fourth session, call a: where the device idles in the large GPT step
# (gaps.py), and training alone against the quiet launch window (issue 6).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$PWD/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-24
timeout 200 python3 build-scratch/gaps.py --scale large > $L/gaps.log 2>&1; echo "gaps rc=$? $(( $(date +%s)-t0 ))s"
grep -v Warning $L/gaps.log | grep -v _warn_once | tail -40
i=0
for w in 4 16 4 16; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  i=$((i+1))
  BATON_LAUNCHES_AHEAD_QUIET=$w timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-$i-w$w.log 2>&1
  echo "rt $i window=$w rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt-$i-w$w.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf a.tgz a && rm -rf a
