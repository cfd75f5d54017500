#!/usr/bin/env bash
# Final tree: the clang custom-op demo (plugin variants, shim and runtime as
# built now) and the launch interposer's overhead on training alone.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/l; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/cfg.log $L/build.log; exit 1; }
d=build-scratch/demos
timeout 100 examples/clang-custom-op/run.sh $d/custom_op_demo $d/custom_op_demo_plain build-gpu/demo-run $d/custom_op_demo_lazy > $L/clang-demo.log 2>&1; echo "clang demo rc=$?"
grep -cE "^PASS" $L/clang-demo.log; grep -E "^FAIL" $L/clang-demo.log | head -3
OUT=$L MPS=0 STEPS=150 REPS=3 PAIR_SECONDS=3 timeout $(( 560 - ($(date +%s)-t0) )) bench/preload/run.sh > $L/preload.log 2>&1; echo "preload rc=$? ($(( $(date +%s)-t0 ))s)"
grep -iE "overhead|checksum|identical|p99" $L/preload.log | head -12
echo "total $(( $(date +%s)-t0 ))s"
