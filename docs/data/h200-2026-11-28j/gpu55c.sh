#!/usr/bin/env bash
# Fifty-fifth session, call c (an H200): the gate reports CUPTI's refusals
# and keeps listening when it cannot stop: the python ctest and
# gpu.torch_bypass again, then bench/torch/gate_ab.py with CNN training
# served at 50% (gate off and on, 4 rounds).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
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
grep -o '"bypass_gate_beside": {.\{0,400\}' $L/bypass.log | head -1
left=$(( 560 - ($(date +%s)-t0) ))
timeout $left python3 bench/torch/gate_ab.py --out $L/cnn --train cnn --rounds 4 --window 4 --phases served > $L/cnn.log 2>&1; echo "gate_ab cnn rc=$? $(( $(date +%s)-t0 ))s"
grep -E "encoder:|ready after" $L/cnn.log | cut -c1-200
grep -E "(idle|served) [0-9] gate" $L/cnn.log | cut -c1-220
sed -n '/==== bypass gate/,$p' $L/cnn.log
tail -5 $L/cnn.log | grep -iE "error|exit" | cut -c1-300
cd $OUT && tar czf c.tgz c && rm -rf c
