#!/usr/bin/env bash
# Twenty-fourth session, call k: bench/torch/run.sh check on the committed
# tree (five models now), as the README's GPU run does it.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/k; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
BATON_CMAKE_ARGS="-DBATON_PYBIND11_INCLUDE_DIR=$PWD/.deps/pybind11/include" OUT=$L timeout 560 bench/torch/run.sh check > $L/run-check.log 2>&1; echo "run.sh check rc=$? $(( $(date +%s)-t0 ))s"
grep -A8 'check_training summary' $L/run-check.log | cut -c1-230; tail -5 $L/run-check.log
rm -rf $L/*.json
cd $OUT && tar czf k.tgz k && rm -rf k
