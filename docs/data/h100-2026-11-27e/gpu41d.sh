#!/usr/bin/env bash
# Forty-first session, call d: the GPU tests on this session's tree, with
# the corpus's new sm_80 modules (47 more manifest lines, JIT-compiled for
# the H100) in gpu.corpus_check and variants_gpu.equivalence.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
git log --oneline -1 2>/dev/null | tee $L/commit.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout $(( 585 - ($(date +%s)-t0) )) ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -10
grep -E "^corpus_check|passed, [0-9]+ failed|PASS.*nvcc-sm80" $L/ctest.log | head -8
grep -c "nvcc-sm80" $L/ctest.log
gzip -f $L/ctest.log
cd $OUT && tar czf d.tgz d && rm -rf d
