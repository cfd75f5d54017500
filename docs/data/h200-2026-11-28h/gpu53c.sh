#!/usr/bin/env bash
# Fifty-third session, call c (an H200): the bypass gate's first GPU run
# (python/src/BypassGate.h): its device test (python ctest, in it
# test_bypass_gate_gpu.py), gpu.torch_bypass with the gate and without it
# (scenario ungated), and gpu.torch_training with the gate in the loop.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
grep -i "cupti\|bypass gate" $L/build.log
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-gpu -R '^python$' --output-on-failure -V > $L/python.log 2>&1; echo "python rc=$? $(( $(date +%s)-t0 ))s"
grep -E "bypass_gate|gate_lease|router_gpu|^[0-9]+: (Ran|OK|FAILED)|tests passed" $L/python.log | cut -c1-220
grep -E "AssertionError|Error" -A3 $L/python.log | head -20
timeout 200 ctest --test-dir build-gpu -R 'gpu\.torch_bypass' --output-on-failure -V > $L/bypass.log 2>&1; echo "bypass rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^[0-9]+: \[bypass.*(gate|ok |FAIL)|^[0-9]+: (queued|ungated)" $L/bypass.log | cut -c1-400
cp build-gpu/python/torch-bypass/*.json $L/ 2>/dev/null
left=$(( 560 - ($(date +%s)-t0) ))
timeout $left ctest --test-dir build-gpu -R 'gpu\.torch_training' --output-on-failure -V > $L/training.log 2>&1; echo "training rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|PASS|FAIL|bypass|gate" $L/training.log | tail -14 | cut -c1-300
cd $OUT && tar czf c.tgz c && rm -rf c
