#!/usr/bin/env bash
# Fifty-second session, call d (an H200): the GPU tests on main after the
# fifty-first session's front-end changes, gpu.corpus_check with its two
# new operand-form named-barrier kernels (sync.cu) among them. The
# interposer's scripts (gpu.preload*), untouched since their last pass
# (session 51, call a), are left out for time.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 400 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' -E 'gpu\.preload' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
grep -E "named_barrier_operands|adjacent_diff_sync_operand" $L/ctest.log | cut -c1-160 | head -8
grep -E "gpu\.corpus_check.*(Passed|Failed)" $L/ctest.log
gzip -f $L/ctest.log
cd $OUT && tar czf d.tgz d && rm -rf d
