#!/usr/bin/env bash
# Forty-second session, call c: call b again on the whole collection (252
# modules), with one block for kernels that never read %ctaid and one thread
# for those that never read %tid, and modules that do not load checked
# against their input.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
rm -rf /tmp/wild; timeout $(( 580 - ($(date +%s)-t0) )) bash bench/ptx_libraries/gpu_check.sh build-gpu /tmp/wild wild-ptx 30 > $L/gpu_check.log 2>&1
echo "gpu_check rc=$? $(( $(date +%s)-t0 ))s"
cp /tmp/wild/manifest.txt /tmp/wild/no-guess.txt $L/ 2>/dev/null
mkdir -p $L/logs
for f in $(grep -o 'log: .*' $L/gpu_check.log | cut -d' ' -f2); do cp $f $L/logs/; done
grep -v '^passed\|^original faulted' $L/gpu_check.log | tail -40
cd $OUT && tar czf c.tgz c && rm -rf c
