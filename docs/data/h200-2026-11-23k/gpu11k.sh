#!/usr/bin/env bash
# Preemption latency, three runs (ABI 2), and the C++ colocation at 50%.
set -u
cd "$(dirname "$0")/.."
L=$OUT/k; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1
cmake --build build-gpu -j16 --target baton-ptx preempt_latency > /dev/null 2>&1 || exit 1
x=build-gpu/xformed-k
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/variants-gpu > /dev/null 2>&1
for r in 1 2 3; do
  timeout 100 build-gpu/bench/preempt_latency $x/kernels/blocks.ptx 200 > $L/preempt_latency-$r.log 2>&1
  echo "== latency run $r"; grep -E "^(5|50) .*stream-write  " $L/preempt_latency-$r.log
done
cd bench/colocation
t0=$(date +%s)
for r in 1 2; do
  timeout 170 python3 colocate.py --lib ../../build/bench/colocation/libbaton_train_mlp.so --out $L/coloc-$r --loads 0.5 --systems alone,baton-train-alone,baton-time --rounds 1 --deadline 160 > $L/coloc-$r.log 2>&1
  echo "== colocation run $r ($(( $(date +%s)-t0 ))s)"
  grep -E "under Baton|baton-time  |round 1 baton-time|round 1 alone" $L/coloc-$r.log | cut -c1-220
done
cd $OUT && tar czf k.tgz k && rm -rf k
