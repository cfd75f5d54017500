#!/usr/bin/env bash
# Thirty-eighth session, call b (right after a, on the warm machine, with its caches): the final form of the idle originals
# (b15549d: a launch qualifies only with blocks measured at the original's
# own occupancy) and the eager registry join (471e95d).
# 1. GPU tests, the scheduler's unit tests and the Python package's tests
#    (test_router_gpu: a latency-critical process is a peer from enable()).
# 2. Issue 6: the large GPT training alone, routed over unrouted
#    (route_threshold.py, three routed windows between unrouted ones), the
#    default against BATON_IDLE_ORIGINAL_BLOCKS_US=0.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-torch $CFG -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-38
i=0
for v in default off default off default off default off; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 70 ] || break
  i=$((i+1))
  if [ $v = off ]; then export BATON_IDLE_ORIGINAL_BLOCKS_US=0; else unset BATON_IDLE_ORIGINAL_BLOCKS_US; fi
  timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 4 --repeat 3 > $L/rt-$i-$v.log 2>&1
  echo "rt $i $v rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'around' $L/rt-$i-$v.log | tr -s ' ')"
done
cd $OUT && tar czf b.tgz b && rm -rf b
