#!/usr/bin/env bash
# Twenty-ninth session, call a: task ABI 5 (one 64-bit atomic on {next,
# preempt} per claim; void claims counted in `voided`). GPU tests on the new
# tree (variants_gpu.equivalence runs the regenerated clang-plugin corpus and
# the pause and vacate storms; exactly_once the runtime's), the clang
# custom-op demo and the colocation MLP's training check built here with the
# new plugin and carried, then preemption latency (ABI-level harness).
# Usage: bash docs/data/h100-2026-11-26f/gpu29a.sh (carry .deps, build-scratch)
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|SchedulerService|SchedulerSim' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Skipped|Timeout" $L/ctest.log | head -20
cp build-gpu/Testing/Temporary/LastTest.log $L/ctest-full.log; gzip -f $L/ctest-full.log
zgrep -E "passed, [0-9]+ failed|pauses [0-9]+$" $L/ctest-full.log.gz | head -20
d=build-scratch/c29/demos
timeout 100 examples/clang-custom-op/run.sh $d/custom_op_demo $d/custom_op_demo_plain build-gpu/demo-run $d/custom_op_demo_lazy > $L/clang-demo.log 2>&1; echo "clang demo rc=$?"
grep -E "PASS|FAIL|checks" $L/clang-demo.log | tail -4
timeout 200 python3 bench/colocation/check_train.py build-scratch/c29/coloc/libbaton_train_mlp.so > $L/check_train.log 2>&1; echo "check_train rc=$?"; tail -3 $L/check_train.log
x=build-gpu/xformed-a
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/variants-gpu > /dev/null 2>&1
left=$(( 560 - ($(date +%s)-t0) ))
[ $left -gt 30 ] && timeout $left build-gpu/bench/preempt_latency $x/kernels/blocks.ptx 100 > $L/preempt_latency.log 2>&1; head -16 $L/preempt_latency.log
echo "total $(( $(date +%s)-t0 ))s"
cd $OUT && tar czf a.tgz a && rm -rf a
