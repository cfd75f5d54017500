#!/usr/bin/env bash
# Fifty-fourth session, call c (an H200): gpu.torch_bypass on the gate
# with short Triton kernels exempted and CUPTI's names for library
# kernels; then the served phase of bench/torch/gate_ab.py alone, more
# rounds (GPT, then CNN in the time left): does the gate cost p99 at 50%?
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 120 ctest --test-dir build-gpu -R 'gpu\.torch_bypass' --output-on-failure -V > $L/bypass.log 2>&1; echo "bypass rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^[0-9]+: \[bypass.*(gate|FAIL)|^[0-9]+: (queued|ungated)" $L/bypass.log | cut -c1-300
export PYTHONPATH=$R/build-gpu/python BATON_CACHE_DIR=$HOME/.cache/baton PYTHONFAULTHANDLER=1
export CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
for m in gpt cnn; do
  left=$(( 560 - ($(date +%s)-t0) ))
  [ $left -lt 150 ] && { echo "$m: skipped, ${left}s left"; continue; }
  timeout $left python3 bench/torch/gate_ab.py --out $L/$m --train $m --phases served --rounds 6 --window 4 > $L/$m.log 2>&1; echo "gate_ab $m rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "encoder:|ready after" $L/$m.log | cut -c1-200
  sed -n '/==== bypass gate/,$p' $L/$m.log | cut -c1-600
done
cd $OUT && tar czf c.tgz c && rm -rf c
