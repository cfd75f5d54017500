#!/usr/bin/env bash
# Forty-eighth session, call d (issue 6): the large GPT's torch.compile
# training alone, kernels of 100 us and more routed, over the unrouted
# windows around them, with the scheduler's run times from the device
# (BATON_TIME_RUNS_ON_DEVICE=1) and from the host, processes alternated.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-d
i=0
for T in 1 0 1 0; do
  i=$((i+1)); left=$(( 580 - ($(date +%s)-t0) )); [ $left -gt 120 ] || { echo "no time for run $i"; break; }
  BATON_TIME_RUNS_ON_DEVICE=$T timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 4 --repeat 3 > $L/run$i-t$T.log 2>&1
  echo "run $i timed $T rc=$? $(( $(date +%s)-t0 ))s: $(grep 'over the unrouted' $L/run$i-t$T.log | cut -d: -f2)"
done
cd $OUT && tar czf d.tgz d && rm -rf d
