#!/usr/bin/env bash
# Thirty-first session, call j: baton.torch's automatic brackets close on
# events recorded after each latency-critical launch (lc_queued) instead of
# querying the streams, which may be capturing. bench/torch/run.sh check:
# the Python tests (GPU ones included), the six models' training checks and
# check_graphs.py (lc-trees now also requires the bracket to close after
# the last request).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/j; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
BATON_CMAKE_ARGS="-DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps" \
  BATON_CACHE_DIR=$L/cache OUT=$L timeout 585 bench/torch/run.sh check > $L/run.log 2>&1; echo "run.sh rc=$? $(( $(date +%s)-t0 ))s"
tail -14 $L/run.log
grep -E "Ran |OK|FAILED|skipped" $L/unit.log | tail -3
grep -E "bracket_closed" $L/graphs.log | cut -c1-300
rm -rf $L/cache
gzip -f $L/run.log $L/check.log $L/graphs.log
cd $OUT && tar czf j.tgz j && rm -rf j
