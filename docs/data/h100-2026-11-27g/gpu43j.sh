#!/usr/bin/env bash
# Forty-third session, call j: the second batch of real CUDA sources
# (Rodinia, Parboil, SHOC; wild-cu2/, copied verbatim, not
# committed; sources in wild-cu2-sources.tsv) compiled here to PTX by nvcc
# and clang: the variants against the originals at guessed launches.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/j; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
rm -rf /tmp/wildcu2; timeout $(( 580 - ($(date +%s)-t0) )) bash bench/ptx_libraries/gpu_check.sh build-gpu /tmp/wildcu2 wild-cu2/ptx 30 > $L/gpu_check.log 2>&1
echo "gpu_check rc=$? $(( $(date +%s)-t0 ))s"
cp /tmp/wildcu2/manifest.txt /tmp/wildcu2/no-guess.txt $L/ 2>/dev/null
mkdir -p $L/logs
for f in $(grep -o 'log: .*' $L/gpu_check.log | cut -d' ' -f2); do head -c 20000 $f > $L/logs/$(basename $f); done
grep -v '^passed\|^original faulted' $L/gpu_check.log | tail -40
cd $OUT && tar czf j.tgz j && rm -rf j
