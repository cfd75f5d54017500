#!/usr/bin/env bash
# Fifty-fifth session, call e (an H200): after the review's mends, the
# python ctest and gpu.torch_bypass (the waits compared with the products
# launched while the requests ran).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 100 ctest --test-dir build-gpu -R '^python$' --output-on-failure -V > $L/python.log 2>&1; echo "python rc=$? $(( $(date +%s)-t0 ))s"
grep -E "bracket opens|^[0-9]+: (Ran|OK|FAILED)|tests passed" $L/python.log | cut -c1-200
grep -E "AssertionError|Error" -A3 $L/python.log | head -20
timeout 120 ctest --test-dir build-gpu -R 'gpu\.torch_bypass' --output-on-failure -V > $L/bypass.log 2>&1; echo "bypass rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^[0-9]+: \[bypass.*(gate|ok |FAIL)|^[0-9]+: (queued|ungated)" $L/bypass.log | cut -c1-300
grep -o '"products_launched_beside": [0-9]*, "gated_beside": [0-9]*' $L/bypass.log | head -2
cd $OUT && tar czf e.tgz e && rm -rf e
