#!/usr/bin/env bash
# Forty-eighth session, call f (after call e, same machine): the GPT step's
# variant overhead site by site, every launch routed, on the tree with runs
# timed on the device by default, no trace.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-f timeout $(( 320 - ($(date +%s)-t0) )) python3 bench/torch/variant_overhead.py --train gpt --scale large > $L/vo-gpt.log 2>&1; echo "vo rc=$? $(( $(date +%s)-t0 ))s"
grep -E 'geometric|weighted|idle' $L/vo-gpt.log | cut -c1-150
cd $OUT && tar czf f.tgz f && rm -rf f
