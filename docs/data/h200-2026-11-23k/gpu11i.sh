#!/usr/bin/env bash
# Is it the flag's cache line? Read `preempt` from another (zeroed) line.
set -u
cd "$(dirname "$0")/.."
sed -i 's/check(D.cuMemAlloc(&Task, sizeof(baton_task)), "task");/check(D.cuMemAlloc(\&Task, 512), "task"); check(D.cuMemsetD32(Task, 0, 128), "task zero");/' test/variants-gpu/GpuHarness.cpp
grep -n "cuMemsetD8(Task" test/variants-gpu/GpuHarness.cpp | head -2
grep -n "cuMemsetD8" test/variants-gpu/*.h lib/Runtime/Driver.h | head -2
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1
cmake --build build-gpu -j16 --target baton-ptx variant_overhead > /tmp/b.log 2>&1 || { tail -20 /tmp/b.log; exit 1; }
grep -vE "^#" bench/manifests/training-sizes.txt > /tmp/m.txt
rm -rf /tmp/e; mkdir -p /tmp/e/base
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx /tmp/e/base test/corpus > /dev/null
mk() { mkdir -p /tmp/e/$1; (cd /tmp/e/base && find . -name '*.ptx') | while read f; do mkdir -p /tmp/e/$1/$(dirname $f); sed -e "$2" /tmp/e/base/$f > /tmp/e/$1/$f; done; }
AHEAD='/@!%baton_fresh ld.volatile.global.u32 %baton_flag/d'
PERCLAIM="$AHEAD;s/\(add.u32 %baton_lim, %baton_nv, %baton_size;\)/\1\n\t@!%baton_fresh ld.volatile.global.u32 %baton_flag, [%baton_task+24];/"
OLD="$AHEAD;s/@%baton_fresh ld.volatile.global.u32 %baton_flag/ld.volatile.global.u32 %baton_flag/"
NOFLAG='/ld.volatile.global.u32 %baton_flag/d;s/setp.ne.u32 %baton_preempted, %baton_flag, 0;/setp.ne.u32 %baton_preempted, %baton_end, %baton_end;/'
L128='s/%baton_flag, \[%baton_task+24\]/%baton_flag, [%baton_task+128]/'
L48='s/%baton_flag, \[%baton_task+24\]/%baton_flag, [%baton_task+48]/'
mk noflag "$NOFLAG"; mk perclaim "$PERCLAIM"; mk perclaim128 "$PERCLAIM;$L128"
mk perblock128 "$L128"; mk perblock48 "$L48"; mk old128 "$OLD;$L128"; mk old "$OLD"
for r in 1 2; do for e in old old128 perclaim perclaim128 base perblock48 perblock128 noflag; do
  echo "== $e $r"; timeout 60 build-gpu/bench/variant_overhead /tmp/e/$e /tmp/m.txt 2>&1 | grep -E "_kernel|saxpy|gelu|rror" | awk '{print $2, $5, $6, $7, $9, $10}'
done; done
