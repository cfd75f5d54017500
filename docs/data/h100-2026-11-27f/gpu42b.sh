#!/usr/bin/env bash
# Forty-second session, call b: the variants of PTX collected from public
# repositories (carried as wild-ptx/, not committed) against their originals
# on the GPU, at guessed launches (bench/ptx_libraries/gpu_check.sh).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout $(( 580 - ($(date +%s)-t0) )) bash bench/ptx_libraries/gpu_check.sh build-gpu /tmp/wild wild-ptx 30 > $L/gpu_check.log 2>&1
echo "gpu_check rc=$? $(( $(date +%s)-t0 ))s"
cp /tmp/wild/manifest.txt /tmp/wild/no-guess.txt $L/ 2>/dev/null
mkdir -p $L/logs
for f in $(grep -l '^FAIL' /tmp/wild/logs/*.log 2>/dev/null | head -60); do cp $f $L/logs/; done
grep -v '^passed\|^original faulted' $L/gpu_check.log | tail -40
cd $OUT && tar czf b.tgz b && rm -rf b
