#!/usr/bin/env bash
# Fortieth session, call b, on call a's machine: the GPU tests again (call
# a's ran out of time at 81 of 92, none failed), then training alone
# under enable(matmuls="long") against PyTorch's defaults (issue 6),
# gemm_choice.py, one process each, the package from call a's build-gpu.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
timeout 200 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
gzip -f $L/ctest.log
export PYTHONPATH=$R/build-gpu/python BATON_CACHE_DIR=/tmp/bcache-40
timeout $(( 585 - ($(date +%s)-t0) )) python3 bench/torch/gemm_choice.py --out $L/gemm --train gpt --scale large \
  --modes defaults,baton-long,baton-long-always --rounds 1 --seconds 3 --windows 3 2>&1 | tee $L/gemm.log | tail -12
echo "done $(( $(date +%s)-t0 ))s"
cd $OUT && tar czf b.tgz b && rm -rf b
