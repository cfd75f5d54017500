#!/usr/bin/env bash
# Fiftieth session, call b (an H200): check_training.py over models it had
# never seen, from timm, torchvision and transformers (zoo.py), with random
# weights: every Triton kernel routed, then routed under a storm of pauses,
# against the reference run, bit for bit. GEMMs left to cuBLAS
# (--matmuls library): the zoo is for the other kernels, and the Triton
# GEMM templates are checked by the default models.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
python3 -c "import timm, torchvision, transformers; print('timm', timm.__version__, 'torchvision', torchvision.__version__, 'transformers', transformers.__version__)" | tee $L/versions.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache PYTHONUNBUFFERED=1
timeout 540 python3 bench/torch/check_training.py --models zoo --matmuls library \
  --budget 420 --model-timeout 150 --out $L > $L/check.log 2>&1; echo "check rc=$? $(( $(date +%s)-t0 ))s"
grep -E "compiled in|variants ready|: routed|: preempted|identical|DIFFERENT|Error|error" $L/check.log | cut -c1-200 | head -60
sed -n '/==== check_training summary/,$p' $L/check.log
gzip -f $L/check.log
cd $OUT && tar czf b.tgz b && rm -rf b
