#!/usr/bin/env bash
# Fifty-second session, call f (an H200): the bench-size GPT's cost of
# routing when nobody preempts, with windows alternated so that drift
# cancels (route_threshold.py: unrouted, >= 100 us routed (the default),
# three times, then unrouted again), after call e's single-window 0.947.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-52
timeout $(( 270 - ($(date +%s)-t0) )) python3 bench/torch/route_threshold.py --train gpt --scale bench \
  --thresholds 100 --repeat 3 --seconds 4 > $L/route-gpt-bench.log 2>&1; echo "rc=$? $(( $(date +%s)-t0 ))s"
grep -A12 "training alone" $L/route-gpt-bench.log
cd $OUT && tar czf f.tgz f && rm -rf f
