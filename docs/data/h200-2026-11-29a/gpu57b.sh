#!/usr/bin/env bash
# Fifty-seventh session, call b (an H200): issue 6's cost of routing when
# nobody preempts, on main with the bypass gate on (its default since the
# fifty-fifth session): route_threshold.py at the large size, windows
# alternated (unrouted, kernels of 100 us and more routed, three times, then
# unrouted again), the CNN (last measured on the H100) and then the GPT.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-57
for m in cnn gpt; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 60 ] || { echo "no time for $m"; break; }
  timeout $left python3 bench/torch/route_threshold.py --train $m --scale large \
    --thresholds 100 --repeat 3 --seconds 4 > $L/route-$m-large.log 2>&1; echo "$m rc=$? $(( $(date +%s)-t0 ))s"
  grep -A12 "training alone" $L/route-$m-large.log
done
grep -h "bypass gate\|Traceback\|Error" $L/route-*.log | sort | uniq -c | head -8
cd $OUT && tar czf b.tgz b && rm -rf b
