#!/usr/bin/env bash
# Fifty-fifth session, call d (an H200): gpu.torch_bypass with the gate's
# counts read when the requests end rather than after report(), then
# bench/torch/gate_ab.py with GPT training served at 50% (2 more rounds).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 150 ctest --test-dir build-gpu -R 'gpu\.torch_bypass' --output-on-failure -V > $L/bypass.log 2>&1; echo "bypass rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^[0-9]+: \[bypass.*(gate|ok |FAIL)|^[0-9]+: (queued|ungated)" $L/bypass.log | cut -c1-300
export PYTHONPATH=$R/build-gpu/python BATON_CACHE_DIR=$HOME/.cache/baton PYTHONFAULTHANDLER=1
export CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
grep -o '"bypass_gate_beside": {.\{0,300\}' $L/bypass.log | head -1
grep -o '"report_s": [0-9.]*' $L/bypass.log | head -2
left=$(( 560 - ($(date +%s)-t0) ))
timeout $left python3 bench/torch/gate_ab.py --out $L/gpt --train gpt --rounds 2 --window 4 --phases served > $L/gpt.log 2>&1; echo "gate_ab gpt rc=$? $(( $(date +%s)-t0 ))s"
grep -E "encoder:|ready after" $L/gpt.log | cut -c1-200
grep -E "(idle|served) [0-9] gate" $L/gpt.log | cut -c1-220
sed -n '/==== bypass gate/,$p' $L/gpt.log
tail -5 $L/gpt.log | grep -iE "error|exit" | cut -c1-300
cd $OUT && tar czf d.tgz d && rm -rf d
