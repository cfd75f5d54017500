#!/usr/bin/env bash
# Thirty-ninth session, call c: GPU tests on main (session 38's new
# exactly_once checks of the per-run worker count), then training alone
# under baton.torch against PyTorch's defaults, with Triton GEMMs (the
# default) and with matmuls="library", not routed (auto, no LC client)
# and routed (schedule="always"), gemm_choice.py, one process each.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
(cmake -S . -B build-torch $CFG -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-39
timeout $(( 590 - ($(date +%s)-t0) )) python3 bench/torch/gemm_choice.py --out $L/gemm --train gpt --scale large \
  --modes defaults,baton-library,baton-library-always,baton,baton-always --rounds 1 --seconds 3 --windows 3 2>&1 | tee $L/gemm.log | tail -12
echo "done $(( $(date +%s)-t0 ))s"
cd $OUT && tar czf c.tgz c && rm -rf c
