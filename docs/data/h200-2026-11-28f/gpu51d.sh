#!/usr/bin/env bash
# Fifty-first session, call d (an H200): issue 5's variant overhead over
# the torch.compile training loop's kernels, every variant against its
# original at each launch site (variant_overhead.py --every-variant; idle
# and quiet original rules off), the large GPT, on main.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-51d
timeout $(( 400 - ($(date +%s)-t0) )) python3 bench/torch/variant_overhead.py --train gpt --scale large --every-variant > $L/vo.log 2> $L/vo.err
echo "vo rc=$? $(( $(date +%s)-t0 ))s"
grep -E 'geometric|weighted|idle' $L/vo.log | cut -c1-150
gzip -f $L/vo.err
cd $OUT && tar czf d.tgz d && rm -rf d
