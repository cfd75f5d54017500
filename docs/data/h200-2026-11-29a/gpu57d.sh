#!/usr/bin/env bash
# Fifty-seventh session, call d (an H200): the GPU tests again, after the
# plugin's barrier analysis reached baton-ptx's (18 of the clang-plugin
# corpus's PTB variants without their drain, three with reductions kept).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 420 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' -E 'gpu\.preload|gpu\.torch' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
grep -E "[0-9]+ passed, [0-9]+ failed|exactly.once.*checks|Ran [0-9]+ tests|^OK|FAILED \(" $L/ctest.log | head -12
grep -E "count_then_exit|count_votes_exact|count_above|block_flags" $L/ctest.log | head -14
gzip -f $L/ctest.log
cd $OUT && tar czf d.tgz d && rm -rf d
