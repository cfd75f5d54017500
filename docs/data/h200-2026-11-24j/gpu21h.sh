#!/usr/bin/env bash
# Twenty-first session: racecheck/synccheck on the new PTB variant; memcheck on HEAD's.
set -u
cd "$(dirname "$0")/.."
L=$OUT/h; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 --target variant_check baton-ptx > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
X=build-gpu/test/variants-gpu/xformed
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $X test/corpus test/variants-gpu > /dev/null 2>&1
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
grep "^nvcc/reduce.ptx reduce_sum_early_return" test/corpus/manifest.txt > $L/m1.txt
for tool in synccheck racecheck; do
timeout 150 $SAN --tool $tool --print-limit 3 build-gpu/test/variants-gpu/variant_check $X $L/m1.txt > $L/$tool.log 2>&1; echo "$tool rc=$?"
grep -v "Host Frame" $L/$tool.log | grep -v "^ok\|^PASS" | head -24
done
# HEAD's transform, same harness binary (the harness reads task.h's constant: 64, more than HEAD's 48 needs)
H=build-scratch/head-src
cmake -S $H -B $H/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/head-cfg.log 2>&1; cmake --build $H/b --target baton-ptx > $L/head-build.log 2>&1 || tail -5 $L/head-build.log
Y=build-gpu/xf-head; scripts/transform-tree.sh $H/b/tools/baton-ptx/baton-ptx $Y test/corpus test/variants-gpu > /dev/null 2>&1; grep -c baton_end $Y/nvcc/reduce.ptx
timeout 150 $SAN --tool memcheck --print-limit 3 build-gpu/test/variants-gpu/variant_check $Y $L/m1.txt > $L/memcheck-head.log 2>&1; echo "memcheck head rc=$?"
grep -v "Host Frame" $L/memcheck-head.log | grep -v "^ok\|^PASS" | head -16
