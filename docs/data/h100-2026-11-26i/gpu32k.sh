#!/usr/bin/env bash
# Thirty-second session, call k: baton.triton holds routed launches back
# around every module load Triton makes (kernel_load_start_hook, bounded by
# BATON_LOAD_HOLD_MAX_MS, 2 s; released by the end hook or the thread's
# next launch). bench/torch/run.sh check: the six training models, the
# three CUDA-graph scenarios (lc-trees compiles on a latency-critical
# thread next to routed training) and check_ops.py.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/k; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
BATON_CMAKE_ARGS="-DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps" \
  BATON_CACHE_DIR=$L/cache OUT=$L timeout 590 bench/torch/run.sh check > $L/run.log 2>&1; echo "run.sh rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== bench\/torch summary/,$p' $L/run.log | grep -vE "^[a-z-]+: PASS: [0-9]+ launches routed, [0-9]+ pauses in the preempted run; routed ==" | cut -c1-220
grep -E "Timeout|HUNG" $L/*.log | head -3
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf k.tgz k && rm -rf k
