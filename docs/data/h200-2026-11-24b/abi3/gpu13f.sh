#!/usr/bin/env bash
# Same machine, interleaved: variant overhead with the finalize kernel (ABI 2,
# this tree) and with the last worker out publishing (ABI 3 prototype patch).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/f; mkdir -p $L
nvidia-smi -L > $L/gpu.txt
p3=/tmp/abi3; rm -rf $p3; mkdir -p $p3
tar cf - --exclude=./build-gpu --exclude=./build-torch --exclude=./build --exclude=./build-asan . | (cd $p3 && tar xf -)
(cd $p3 && patch -p1 -s < docs/data/h200-2026-11-24b/abi3/abi3-last-worker-out.patch) || { echo patch failed; exit 1; }
for t in . $p3; do
  (cd $t && cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 --target baton-ptx variant_overhead > $L/build-$(basename $t).log 2>&1) || { tail -20 $L/build-$(basename $t).log; exit 1; }
  (cd $t && scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx build-gpu/xformed test/corpus test/variants-gpu > /dev/null 2>&1)
done
echo "built $(( $(date +%s)-t0 ))s"
for r in 1 2; do for t in . $p3; do
  n=$([[ $t == . ]] && echo abi2 || echo abi3)
  (cd $t && timeout 100 build-gpu/bench/variant_overhead build-gpu/xformed bench/manifests/training-sizes.txt test/corpus/triton-manifest.txt) > $L/vo-$n-$r.log 2>&1
  echo "$n $r: $(tail -1 $L/vo-$n-$r.log)"
done; done
cd $OUT && tar czf f.tgz f && rm -rf f
echo "total $(( $(date +%s)-t0 ))s"
