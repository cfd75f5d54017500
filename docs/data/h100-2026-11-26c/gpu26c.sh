#!/usr/bin/env bash
# Twenty-sixth session, call c (H100): training alone, large GPT, routed
# against unrouted, with BE launches run as the original while the device is
# quiet when their original is expected to take at most N us
# (BATON_QUIET_ORIGINALS_UP_TO_US, an experiment), interleaved with the
# default (issue 6).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-26
i=0
for s in default all q400 default all; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 75 ] || break
  i=$((i+1)); env=""
  case $s in all) env="BATON_QUIET_ORIGINALS_UP_TO_US=1000000";; q400) env="BATON_QUIET_ORIGINALS_UP_TO_US=400";; esac
  env $env timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 5 > $L/rt-$i-$s.log 2>&1
  echo "rt $i $s rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt-$i-$s.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf c.tgz c && rm -rf c
