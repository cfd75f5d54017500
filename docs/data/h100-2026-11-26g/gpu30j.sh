#!/usr/bin/env bash
# Thirtieth session, call j: the corpus gains sgemm_cp_async
# (test/corpus/src/matmul.cu: a two-stage cp.async pipeline through
# cuda_pipeline.h) from nvcc, clang and the clang plugin; every PTB variant
# of it now waits for its copies at each block's end. The smoke run of the
# CUDA manifest (launchable, deterministic), then the GPU tests (its lines
# checked against the original under storms in variant_check and
# corpus_check).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/j; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
timeout 300 python3 test/corpus/smoke-run.py test/corpus/manifest.txt > $L/smoke.log 2>&1; echo "smoke rc=$?"; grep -E 'cp_async|problem' $L/smoke.log
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 420 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' -E 'preload' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Timeout" $L/ctest.log | head
cp build-gpu/Testing/Temporary/LastTest.log $L/ctest-full.log
grep -E "sgemm_cp_async|passed, [0-9]+ failed" $L/ctest-full.log | head -20
gzip -f $L/ctest-full.log
cd $OUT && tar czf j.tgz j && rm -rf j
