#!/usr/bin/env bash
# Thirty-third session, call b: bench/torch/run.sh check with the drain
# (the six training models, the three CUDA-graph scenarios, check_ops.py,
# and check_loads.py, whose latency-critical thread now has a stream of its
# own: in call a it ran on the training's default stream and hung).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
BATON_CMAKE_ARGS="-DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps" \
  BATON_CACHE_DIR=$L/cache OUT=$L timeout 590 bench/torch/run.sh check > $L/run.log 2>&1; echo "run.sh rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== bench\/torch summary/,$p' $L/run.log | grep -vE "^[a-z-]+: PASS: [0-9]+ launches routed, [0-9]+ pauses in the preempted run; routed ==" | cut -c1-220
grep -hE "lc-explicit: request|drains" $L/loads.log | cut -c1-200 | tail -6
grep -E "Timeout|HUNG" $L/*.log | head -3
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf b.tgz b && rm -rf b
