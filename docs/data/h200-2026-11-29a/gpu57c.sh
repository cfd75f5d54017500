#!/usr/bin/env bash
# Fifty-seventh session, call c (an H200): the GPU tests on this session's
# changes (aliases, the reduction-barrier rule with the corpus's new
# count_then_exit kernel, the side module's name resolution).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 420 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' -E 'gpu\.preload|gpu\.torch' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
grep -E "[0-9]+ passed, [0-9]+ failed|exactly.once.*checks|Ran [0-9]+ tests|^OK|FAILED \(" $L/ctest.log | head -12
grep -E "count_then_exit" $L/ctest.log | head -6
gzip -f $L/ctest.log
cd $OUT && tar czf c.tgz c && rm -rf c
