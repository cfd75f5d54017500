#!/usr/bin/env bash
# Thirtieth session, call e (issue 6): baton.torch's correctness check with
# a workload it had not met, a small vision transformer (patches by a
# strided convolution, 65 tokens, non-causal attention), next to the five
# models before it: `bench/torch/run.sh check` (losses and parameters bit
# for bit unrouted, routed, and routed under a bracket storm).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
BATON_CMAKE_ARGS="-DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps" \
  OUT=$L timeout 580 bench/torch/run.sh check > $L/run-check.log 2>&1
echo "run.sh check rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/bench\/torch summary/,$p' $L/run-check.log | head -40
grep -E "vit: (routed|preempted|a second|variants ready)" $L/check.log | head
gzip -f $L/check-*.json 2>/dev/null
cd $OUT && tar czf e.tgz e && rm -rf e
