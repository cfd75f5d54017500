#!/usr/bin/env bash
# Where to read `preempt`: hand-edited variants of the new PTB code.
set -u
cd "$(dirname "$0")/.."
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1
cmake --build build-gpu -j16 --target baton-ptx variant_overhead > /dev/null 2>&1 || exit 1
grep -vE "^#" bench/manifests/training-sizes.txt > /tmp/m.txt
rm -rf /tmp/e; mkdir -p /tmp/e/base
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx /tmp/e/base test/corpus > /dev/null
mk() { mkdir -p /tmp/e/$1; (cd /tmp/e/base && find . -name '*.ptx') | while read f; do mkdir -p /tmp/e/$1/$(dirname $f); sed -e "$2" /tmp/e/base/$f > /tmp/e/$1/$f; done; }
AHEAD='/@!%baton_fresh ld.volatile.global.u32 %baton_flag/d'
OLD="$AHEAD;s/@%baton_fresh ld.volatile.global.u32 %baton_flag/ld.volatile.global.u32 %baton_flag/"
PERCLAIM="$AHEAD;s/\(add.u32 %baton_lim, %baton_nv, %baton_size;\)/\1\n\t@!%baton_fresh ld.volatile.global.u32 %baton_flag, [%baton_task+24];/"
RELAXED='s/@!%baton_fresh ld.volatile.global.u32 %baton_flag/@!%baton_fresh ld.relaxed.gpu.global.u32 %baton_flag/'
CG='s/@!%baton_fresh ld.volatile.global.u32 %baton_flag/@!%baton_fresh ld.global.cg.u32 %baton_flag/'
NOFLAG='/ld.volatile.global.u32 %baton_flag/d;s/setp.ne.u32 %baton_preempted, %baton_flag, 0;/setp.ne.u32 %baton_preempted, %baton_end, %baton_end;/'
mk old "$OLD"; mk perclaim "$PERCLAIM"; mk relaxed "$RELAXED"; mk cg "$CG"; mk noflag "$NOFLAG"
grep -n "baton_flag" /tmp/e/perclaim/nvcc/elementwise.ptx | head -8
for r in 1 2; do for e in old base perclaim relaxed cg noflag; do
  echo "== $e $r"; timeout 60 build-gpu/bench/variant_overhead /tmp/e/$e /tmp/m.txt 2>&1 | grep -E "_kernel|saxpy|gelu" | awk '{print $2, $5, $6, $7, $9, $10}'
done; done
