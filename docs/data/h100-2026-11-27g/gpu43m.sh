#!/usr/bin/env bash
# Forty-third session, call m: the final tree (the grid-wide wait refusal and its review mends): the GPU tests only.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/m; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout $(( 585 - ($(date +%s)-t0) )) ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -10
grep -E "[0-9]+ passed, [0-9]+ failed" $L/ctest.log | head -12
gzip -f $L/ctest.log
cd $OUT && tar czf m.tgz m && rm -rf m
