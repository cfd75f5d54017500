#!/usr/bin/env bash
# Thirty-first session, call b: the GPU tests with CUDA graph capture
# handled (baton/Capture.h): the new gpu.preload_graphs, gpu.preload
# (latency-critical announcements changed), and the ABI-level and runtime
# GPU tests, which now include the corpus's control.cu kernels (jump table,
# cuda::barrier, bulk copy on an mbarrier, redux.sync and nanosleep).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-gpu -R 'gpu.preload_graphs' --output-on-failure > $L/graphs.log 2>&1; echo "graphs rc=$? $(( $(date +%s)-t0 ))s"
grep -E "PASS|FAIL|graph_check:|baton-preload:|passed, |\"lc_" $L/graphs.log | head -30
timeout 330 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' -E 'preload_cub|preload_graphs' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Timeout|Passed|Skipped" $L/ctest.log | head -20
cp build-gpu/Testing/Temporary/LastTest.log $L/ctest-full.log
grep -E "control|passed, [0-9]+ failed" $L/ctest-full.log | head -30
gzip -f $L/ctest-full.log
cd $OUT && tar czf b.tgz b && rm -rf b
