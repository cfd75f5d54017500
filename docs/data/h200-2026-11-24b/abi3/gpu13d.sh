#!/usr/bin/env bash
# Where the ABI-3 exit's cost goes: A as generated; F without the report's
# stores to host memory; G without the leaders' red on workers_exited; H
# without membar.sys; N with none of the exit's extra work (unsafe).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/d; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 --target baton-ptx variant_overhead > $L/build.log 2>&1 || { tail -30 $L/cfg.log $L/build.log; exit 1; }
x=build-gpu/xformed-A
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/corpus test/variants-gpu > /dev/null 2>&1
for v in F G H; do rm -rf build-gpu/xformed-$v; cp -r $x build-gpu/xformed-$v; done
find build-gpu/xformed-F -name '*.ptx' -exec sed -i '/^\tst\.volatile\.global\.u32 \[%baton_pointer+[48]\]/d; /^\tst\.volatile\.global\.u32 \[%baton_pointer\], %baton_v;/d' {} +
find build-gpu/xformed-G -name '*.ptx' -exec sed -i '/^\tred\.global\.add\.u32 \[%baton_task+28\], 1;/d' {} +
find build-gpu/xformed-H -name '*.ptx' -exec sed -i '/^\tmembar\.sys;/d' {} +
for r in 1 2; do for v in A F G H; do
  timeout 100 build-gpu/bench/variant_overhead build-gpu/xformed-$v bench/manifests/training-sizes.txt test/corpus/triton-manifest.txt > $L/vo-$v-$r.log 2>&1
  echo "$v$r: $(tail -1 $L/vo-$v-$r.log)"
done; done
cd $OUT && tar czf d.tgz d && rm -rf d
echo "total $(( $(date +%s)-t0 ))s"
