#!/usr/bin/env bash
# ABI 3 exit path: GPU tests with the regenerated corpus; variant overhead of
# the generated exit (A), without the leaders' membar.gl (B, unsafe: cost of
# the fence), with atom.acq_rel.gpu instead of membar.gl + atom (E).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/c; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/cfg.log $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
x=build-gpu/xformed-A
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/corpus test/variants-gpu > /dev/null 2>&1
rm -rf build-gpu/xformed-B build-gpu/xformed-E; cp -r $x build-gpu/xformed-B; cp -r $x build-gpu/xformed-E
find build-gpu/xformed-B -name '*.ptx' -exec sed -i '/^\tmembar\.gl;$/d' {} +
find build-gpu/xformed-E -name '*.ptx' -exec perl -0pi -e 's/\tmembar\.gl;\n\tatom\.global\.add\.u32/\tatom.acq_rel.gpu.global.add.u32/g; s/(\@%baton_stop bra \$baton_done;\n)\tmembar\.gl;\n/$1\tfence.acq_rel.gpu;\n/g' {} +
grep -c "acq_rel" build-gpu/xformed-E/triton/vector_add.ptx
for v in A B E; do
  timeout 110 build-gpu/bench/variant_overhead build-gpu/xformed-$v bench/manifests/training-sizes.txt test/corpus/triton-manifest.txt > $L/vo-$v.log 2>&1
  echo "$v: $(tail -1 $L/vo-$v.log)"
done
echo "vo $(( $(date +%s)-t0 ))s"
timeout 280 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest-gpu.log 2>&1
grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|Passed|Skipped|passed, " $L/ctest-gpu.log | tail -16
cd $OUT && tar czf c.tgz c && rm -rf c
echo "total $(( $(date +%s)-t0 ))s"
