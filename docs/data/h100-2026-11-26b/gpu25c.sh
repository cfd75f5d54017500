#!/usr/bin/env bash
# Twenty-fifth session, call c (H100): training alone, large GPT, routed
# against unrouted, with the registry (default) and without (BATON_SHARE=0:
# first runs on the user's stream, the finalize a dependent launch), and
# routing only kernels of 150 us and more, interleaved (issue 6).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-25
i=0
for s in default share0 default share0 min150; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 75 ] || break
  i=$((i+1)); env=""; th=100
  case $s in share0) env="BATON_SHARE=0";; min150) th=150;; esac
  env $env timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds $th --seconds 5 > $L/rt-$i-$s.log 2>&1
  echo "rt $i $s rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt-$i-$s.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf c.tgz c && rm -rf c
