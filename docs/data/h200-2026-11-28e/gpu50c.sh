#!/usr/bin/env bash
# Fiftieth session, call c (an H200): call b again with every routed launch
# run as a variant (check_training.py now turns off the scheduler's rules
# that run one-wave launches, and launches of short blocks once idle, as
# the originals; call b's "routed" phase had run most launches as the
# originals) and the new `originals` count; first the GPT with the
# persistent TMA template (Triton GEMMs), then the zoo but densenet121 with
# GEMMs left to cuBLAS.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache PYTHONUNBUFFERED=1
timeout 200 python3 bench/torch/check_training.py --models gpt-tma \
  --model-timeout 180 --out $L > $L/check-tma.log 2>&1; echo "tma rc=$? $(( $(date +%s)-t0 ))s"
left=$(( 575 - ($(date +%s)-t0) ))
ZOO=hf:llama,timm:efficientnet_b0,hf:t5,timm:convnext_atto,tv:shufflenet_v2_x0_5,hf:bert,timm:mobilenetv3_small_100,timm:deit_tiny_patch16_224,hf:gpt2,timm:resnet26d
timeout $left python3 bench/torch/check_training.py --models $ZOO --matmuls library \
  --budget $(( left - 90 )) --model-timeout 150 --out $L > $L/check-zoo.log 2>&1; echo "zoo rc=$? $(( $(date +%s)-t0 ))s"
for f in $L/check-tma.log $L/check-zoo.log; do
  grep -E ": routed|: preempted" $f | cut -c1-220
  sed -n '/==== check_training summary/,$p' $f
done
gzip -f $L/*.log
cd $OUT && tar czf c.tgz c && rm -rf c
