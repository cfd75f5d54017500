#!/usr/bin/env bash
# Fifty-fifth session, call b (an H200): with the bypass gate on by default
# and asleep after an idle second: the python ctest, gpu.torch_bypass (its
# check now judged when the requests end), then bench/torch/gate_ab.py with
# GPT training (idle: off, callback, awake, on; served at 50%: off, on).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 150 ctest --test-dir build-gpu -R '^python$' --output-on-failure -V > $L/python.log 2>&1; echo "python rc=$? $(( $(date +%s)-t0 ))s"
grep -E "bracket opens|^[0-9]+: (Ran|OK|FAILED)|tests passed" $L/python.log | cut -c1-200
grep -E "AssertionError|Error" -A3 $L/python.log | head -20
timeout 150 ctest --test-dir build-gpu -R 'gpu\.torch_bypass' --output-on-failure -V > $L/bypass.log 2>&1; echo "bypass rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^[0-9]+: \[bypass.*(gate|ok |FAIL)|^[0-9]+: (queued|ungated)" $L/bypass.log | cut -c1-300
export PYTHONPATH=$R/build-gpu/python BATON_CACHE_DIR=$HOME/.cache/baton PYTHONFAULTHANDLER=1
export CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
left=$(( 570 - ($(date +%s)-t0) ))
timeout $left python3 bench/torch/gate_ab.py --out $L/gpt --train gpt --rounds 2 --window 4 --phases idle,served > $L/gpt.log 2>&1; echo "gate_ab gpt rc=$? $(( $(date +%s)-t0 ))s"
grep -E "encoder:|ready after" $L/gpt.log | cut -c1-200
grep -E "(idle|served) [0-9] gate" $L/gpt.log | cut -c1-220
sed -n '/==== bypass gate/,$p' $L/gpt.log
tail -5 $L/gpt.log | grep -iE "error|exit" | cut -c1-300
cd $OUT && tar czf b.tgz b && rm -rf b
