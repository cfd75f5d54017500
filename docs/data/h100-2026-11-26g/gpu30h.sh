#!/usr/bin/env bash
# Thirtieth session, calls h, i and k (TAG=i: the peer made continuous and
# the best-effort run without linger, after h saw only 2 pauses; TAG=k: the
# two scripts' checks moved to test/Preload/checks.sh; TAG=k2: the GPU
# test for skipping too): CUB's
# device-wide algorithms (reduce, scan, radix sort, histogram, select) as a
# program Baton has not seen, built
# with nvcc, recompiled offline and preloaded (ctest gpu.preload_cub,
# test/Preload/cub-check.sh): plain, best-effort, and best-effort next to a
# latency-critical peer, each result checked against the CPU; gpu.preload
# beside it.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; T=${TAG:-h}; L=$OUT/$T; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 540 ctest --test-dir build-gpu -R 'gpu\.preload' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|Timeout|^[0-9]+: (PASS|FAIL)|cub_check:|baton-preload:|most pauses|side module|kernels:" $L/ctest.log | head -40
cp -r build-gpu/test/preload-cub/*.log $L/ 2>/dev/null; gzip -f $L/registry.jsonl 2>/dev/null
cp build-gpu/test/preload-cub/registry.jsonl $L/ 2>/dev/null && gzip -f $L/registry.jsonl
cd $OUT && tar czf $T.tgz $T && rm -rf $T
