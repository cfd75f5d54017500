#!/usr/bin/env bash
# Fifty-first session, call c (an H200): issue 6's figures on the H200 on
# main. (1) gemm_choice.py: the large GPT trained alone under PyTorch's
# defaults, under baton.torch with matmuls="library", and under the
# default matmuls="triton" (nothing routed: no LC client), one process
# each. (2) route_threshold.py: kernels of 100 us and more routed against
# not routed, with the Inductor caches that (1) left.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-51c
timeout $(( 420 - ($(date +%s)-t0) )) python3 bench/torch/gemm_choice.py --out $L/gemm --train gpt --scale large \
  --modes defaults,baton-library,baton --rounds 1 --seconds 3 --windows 3 > $L/gemm.log 2>&1
echo "gemm rc=$? $(( $(date +%s)-t0 ))s"
grep -E "round [0-9]+:|over|defaults|baton" $L/gemm.log | grep -v "^ " | tail -12
left=$(( 585 - ($(date +%s)-t0) ))
if [ $left -gt 90 ]; then
  timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 4 --repeat 2 > $L/rt.log 2>&1
  echo "rt rc=$? $(( $(date +%s)-t0 ))s"
  sed -n '/training alone/,$p' $L/rt.log
else echo "no time for route_threshold"; fi
gzip -f $L/*.log
cd $OUT && tar czf c.tgz c && rm -rf c
