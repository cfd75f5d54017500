#!/usr/bin/env bash
# Fifty-third session, call a (an H200): the first GPU run of
# gpu.torch_bypass (issue 6: latency-critical work next to a queue of
# cuBLAS products), then the GPU test set (gpu.corpus_check runs the plugin
# PTX rebuilt in session 52), then gpu.torch_training at HEAD.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 150 ctest --test-dir build-gpu -R 'gpu\.torch_bypass' --output-on-failure -V > $L/bypass.log 2>&1; echo "bypass rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^\S*[0-9]+: \[bypass|scenario|PASS|FAIL|p99|tests passed" $L/bypass.log | tail -25
timeout 220 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' -E 'gpu\.preload|gpu\.torch' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
grep -E "gpu\.corpus_check.*(Passed|Failed)" $L/ctest.log
left=$(( 560 - ($(date +%s)-t0) ))
timeout $left ctest --test-dir build-gpu -R 'gpu\.torch_training' --output-on-failure -V > $L/training.log 2>&1; echo "training rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|loss|PASS|FAIL" $L/training.log | tail -12
gzip -f $L/ctest.log
cd $OUT && tar czf a.tgz a && rm -rf a
