#!/usr/bin/env bash
# The ABI-level harness with full-stop pauses (it wrote 1, which under task
# ABI 3 vacates only SM 0) and a vacate storm; preemption latency with
# BATON_PREEMPT_ALL.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/g; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/cfg.log $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-gpu -R 'variants_gpu|gpu\.exactly_once|gpu\.scheduler_check|gpu\.runtime_hostile' -V > $L/ctest.log 2>&1
grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $L/ctest.log | tail -4
grep -E "^[0-9]+: (FAIL|ok) " $L/ctest.log | awk '{print $2}' | sort | uniq -c
grep -E "pauses [0-9]+$" $L/ctest.log | awk '{s+=$NF} END {print "variant_check pauses:", s}'
echo "ctest $(( $(date +%s)-t0 ))s"
x=build-gpu/xformed-k
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/variants-gpu > /dev/null 2>&1
timeout 150 build-gpu/bench/preempt_latency $x/kernels/blocks.ptx 100 > $L/preempt_latency.log 2>&1; head -14 $L/preempt_latency.log
echo "total $(( $(date +%s)-t0 ))s"
