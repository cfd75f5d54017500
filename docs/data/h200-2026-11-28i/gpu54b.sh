#!/usr/bin/env bash
# Fifty-fourth session, call b (an H200): the bypass gate with Triton
# kernels timed short exempted, and counting what it gates: its device
# test (python ctest), then bench/torch/gate_ab.py with CNN and with GPT
# training (idle: off / callback only / on; served at 50% load; alone).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target baton_python) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-gpu/python BATON_CACHE_DIR=$HOME/.cache/baton PYTHONFAULTHANDLER=1
(cd python/tests && timeout 60 python3 -m unittest -v test_bypass_gate_gpu) > $L/gate_test.log 2>&1; echo "gate test rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^test_|Ran|OK|FAIL|Error" $L/gate_test.log | cut -c1-200
export CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
for m in cnn gpt; do
  left=$(( 575 - ($(date +%s)-t0) ))
  [ $left -lt 120 ] && { echo "$m: skipped, ${left}s left"; continue; }
  timeout $left python3 bench/torch/gate_ab.py --out $L/$m --train $m --rounds 3 --window 3 > $L/$m.log 2>&1; echo "gate_ab $m rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "encoder:|ready after" $L/$m.log | cut -c1-200
  sed -n '/==== bypass gate/,$p' $L/$m.log | cut -c1-400
  tail -5 $L/$m.log | grep -iE "error|exit" | cut -c1-300
done
cd $OUT && tar czf b.tgz b && rm -rf b
