#!/usr/bin/env bash
# Twenty-fourth session, call c: check_training on flex attention and dynamic
# shapes (new workloads), and the CNN's training alone routed (issue 6).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$PWD/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-24
timeout 330 python3 bench/torch/check_training.py --models gpt-flex,gpt-dyn --out $L --budget 250 > $L/check.log 2>&1; echo "check rc=$? $(( $(date +%s)-t0 ))s"
grep -E '^\[check|summary|PASS|FAIL|ERROR|INCONCLUSIVE|NOT' $L/check.log | grep -v 'reference losses' | tail -24
grep -B2 -A12 'Traceback' $L/check.log | head -40
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 80 ] && { timeout $left python3 bench/torch/route_threshold.py --train cnn --scale large --thresholds 100 --seconds 5 > $L/rt-cnn.log 2>&1; echo "rt cnn rc=$? $(( $(date +%s)-t0 ))s"; tail -4 $L/rt-cnn.log; }
cd $OUT && tar czf c.tgz c && rm -rf c
