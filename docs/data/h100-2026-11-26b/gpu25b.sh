#!/usr/bin/env bash
# Twenty-fifth session, call b (H100): where the routed large GPT step's time
# goes on the H100 (issue 6): per-kernel variant/original (variant_overhead),
# the device's gaps (gaps.py).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-25
timeout 240 python3 bench/torch/variant_overhead.py --train gpt --scale large > $L/vo-gpt.log 2>&1; echo "vo gpt rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/training, large size/,$p' $L/vo-gpt.log | cut -c1-140
left=$(( 590 - ($(date +%s)-t0) ))
timeout $left python3 build-scratch/gaps.py --scale large > $L/gaps.log 2>&1; echo "gaps rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^host issue per step, plain/,$p' $L/gaps.log | grep -v -i 'autotune\|triton_mm\|decompose\|choices\|strides\|dtypes\|E11\|warn'
cd $OUT && tar czf b.tgz b && rm -rf b
