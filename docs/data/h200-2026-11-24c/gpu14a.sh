#!/usr/bin/env bash
# Fourteenth session: task ABI 3 (SM watermark). GPU tests (vacate storm in
# exactly_once), the clang demo (plugin variants, ABI 3), variant overhead.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/a; mkdir -p $L
nvidia-smi -L > $L/gpu.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/cfg.log $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest-gpu.log 2>&1
grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|Passed|Skipped" $L/ctest-gpu.log | tail -16
grep -E "vacate storm|^FAIL" $L/ctest-gpu.log | head
echo "ctest $(( $(date +%s)-t0 ))s"
d=build-scratch/demos
timeout 100 examples/clang-custom-op/run.sh $d/custom_op_demo $d/custom_op_demo_plain build-gpu/demo-run $d/custom_op_demo_lazy > $L/clang-demo.log 2>&1; echo "clang demo rc=$?"
grep -E "PASS|FAIL|checks" $L/clang-demo.log | tail -4
x=build-gpu/xformed-bench
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/corpus test/variants-gpu > /dev/null 2>&1
timeout 100 build-gpu/bench/variant_overhead $x bench/manifests/training-sizes.txt test/corpus/triton-manifest.txt > $L/variant_overhead.log 2>&1
tail -3 $L/variant_overhead.log
echo "total $(( $(date +%s)-t0 ))s"
