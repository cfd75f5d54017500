#!/usr/bin/env bash
# Twenty-third session, call k: the worker's preempted statistic read off v at the exit (both front ends), and a plain-finalize case in exactly_once.
# GPU tests (variants_gpu.equivalence runs the regenerated clang-plugin
# corpus), the clang custom-op demo and the colocation MLP's training check,
# both built here with the new plugin and carried.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/k; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps -DBATON_PYBIND11_INCLUDE_DIR=$PWD/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*Failed" $L/ctest.log | head
cp build-gpu/Testing/Temporary/LastTest.log $L/ctest-full.log; gzip $L/ctest-full.log
zgrep -E "plain finalize|passed, [0-9]+ failed" $L/ctest-full.log.gz | head -12
grep -E "clang-plugin" $L/ctest.log | head -3
d=build-scratch/demos
timeout 100 examples/clang-custom-op/run.sh $d/custom_op_demo $d/custom_op_demo_plain build-gpu/demo-run $d/custom_op_demo_lazy > $L/clang-demo.log 2>&1; echo "clang demo rc=$?"
grep -E "PASS|FAIL|checks" $L/clang-demo.log | tail -4
timeout 300 python3 bench/colocation/check_train.py build-scratch/coloc/libbaton_train_mlp.so > $L/check_train.log 2>&1; echo "check_train rc=$?"; tail -5 $L/check_train.log
echo "total $(( $(date +%s)-t0 ))s"
cd $OUT && tar czf k.tgz k && rm -rf k
