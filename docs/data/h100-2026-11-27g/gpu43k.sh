#!/usr/bin/env bash
# Forty-third session, call k: call j's failures again. guess_launches.py
# now puts the 97 blocks along a coordinate the kernel reads (Rodinia's
# backprop reads only %ctaid.y: along x its blocks raced on the same words);
# SHOC's reduce<T, 256> at its template's 256 threads (reduce-256.txt; at
# the guessed 128 it reads shared memory no thread wrote).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/k; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
rm -rf /tmp/wildcu2; bash bench/ptx_libraries/gpu_check.sh build-gpu /tmp/wildcu2 wild-cu2/ptx 30 > $L/gpu_check.log 2>&1
echo "gpu_check rc=$? $(( $(date +%s)-t0 ))s"
grep -v '^passed\|^original faulted\|^not reproducible' $L/gpu_check.log | tail -20
grep bpnn $L/gpu_check.log
for r in 1 2 3; do
  timeout 60 build-gpu/test/variants-gpu/variant_check /tmp/wildcu2/xformed docs/data/h100-2026-11-27g/reduce-256.txt > $L/reduce-256-$r.log 2>&1
  echo "reduce at 256 threads, round $r: rc=$? $(tail -1 $L/reduce-256-$r.log)"
done
grep -m5 '^FAIL' $L/reduce-256-1.log
cd $OUT && tar czf k.tgz k && rm -rf k
