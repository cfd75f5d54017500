#!/usr/bin/env bash
# Forty-fourth session, call d (issue 6): the large GPT's torch.compile
# training alone, routed over unrouted (route_threshold.py, three routed
# windows between unrouted ones), with PTB first shares (the default) and
# without (BATON_FIRST_SHARES=0), one process each.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-torch $CFG -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-44
i=0
for F in 1 0 1 0; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 150 ] || break
  i=$((i+1))
  BATON_FIRST_SHARES=$F timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 4 --repeat 3 > $L/rt-$i-f$F.log 2>&1
  echo "rt $i shares=$F rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'around' $L/rt-$i-f$F.log | tr -s ' ')"
done
cd $OUT && tar czf d.tgz d && rm -rf d
