#!/usr/bin/env bash
# After the review fixes (every watermark write waited for, stranded
# launches resumed without vacating, prompt widths for kept SMs, queue count
# from the context): GPU tests, then one colocation round at 50%.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/h; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/cfg.log $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' -V > $L/ctest-gpu.log 2>&1
grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $L/ctest-gpu.log | tail -4
grep -E "vacate storm|^[0-9]+: FAIL" $L/ctest-gpu.log | head
echo "ctest $(( $(date +%s)-t0 ))s"
cd bench/colocation
timeout 150 python3 colocate.py --lib $PWD/../../build-scratch/coloc/libbaton_train_mlp.so --out $L/coloc --loads 0.5 --systems alone,baton-time,baton-space --rounds 1 --deadline 140 > $L/coloc.log 2>&1
echo "coloc rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "^(baton-time|baton-space) " $L/coloc.log | cut -c1-60
echo "total $(( $(date +%s)-t0 ))s"
