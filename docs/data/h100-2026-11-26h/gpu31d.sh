#!/usr/bin/env bash
# Thirty-first session, call d: bench/torch/run.sh check with CUDA graph
# capture handled: the six models' training checks (loss with Baton ==
# loss without, routed and preempted) and check_graphs.py's three
# scenarios (graph trees for best-effort training and for a
# latency-critical thread next to routed training, a manual global-mode
# capture while routed work is in flight).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
BATON_CMAKE_ARGS="-DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps" \
  BATON_CACHE_DIR=$L/cache OUT=$L timeout 580 bench/torch/run.sh check > $L/run.log 2>&1; echo "run.sh rc=$? $(( $(date +%s)-t0 ))s"
tail -12 $L/run.log
grep -E "^(be-trees|be-manual|lc-trees) " $L/graphs.log
grep -E "PASS|FAIL|DIFFERENT" $L/check.log | head -12
rm -rf $L/cache
cd $OUT && tar czf d.tgz d && rm -rf d
