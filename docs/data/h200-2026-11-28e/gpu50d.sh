#!/usr/bin/env bash
# Fiftieth session, call d (an H200): the two zoo models call c had no time
# for (hf:gpt2, timm:resnet26d), every routed launch a variant.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache PYTHONUNBUFFERED=1
timeout 190 python3 bench/torch/check_training.py --models hf:gpt2,timm:resnet26d --matmuls library \
  --model-timeout 120 --out $L > $L/check-zoo.log 2>&1; echo "zoo rc=$? $(( $(date +%s)-t0 ))s"
grep -E ": routed|: preempted" $L/check-zoo.log | cut -c1-220
sed -n '/==== check_training summary/,$p' $L/check-zoo.log
gzip -f $L/*.log
cd $OUT && tar czf d.tgz d && rm -rf d
