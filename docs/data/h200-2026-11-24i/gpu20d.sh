#!/usr/bin/env bash
# Twentieth session: PTB cost of the corpus kernels whose drain the refined divergence analysis removed (old vs new transform).
set -u
cd "$(dirname "$0")/.."
L=$OUT/d; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 --target variant_overhead > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
for i in 1 2; do for v in old new; do
timeout 200 build-gpu/bench/variant_overhead build-scratch/xf-$v build-scratch/drain-manifest.txt > $L/vo-$v-$i.log 2>&1; echo "$v $i rc=$?"
done; done
tail -22 $L/vo-old-1.log; tail -22 $L/vo-new-1.log; tail -3 $L/vo-old-2.log $L/vo-new-2.log
rm -f $L/build.log
