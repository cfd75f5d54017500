#!/usr/bin/env bash
# Twenty-first session: the PTB illegal address on nvcc reduce_sum_early_return, under compute-sanitizer.
set -u
cd "$(dirname "$0")/.."
L=$OUT/g; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 --target variant_check baton-ptx > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
X=build-gpu/test/variants-gpu/xformed
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $X test/corpus test/variants-gpu > /dev/null 2>&1
grep "^nvcc/reduce.ptx reduce_sum_early_return\|^clang/reduce.ptx reduce_sum_early_return\|^nvcc/reduce.ptx reduce_max" test/corpus/manifest.txt > $L/m.txt
for i in 1 2; do timeout 60 build-gpu/test/variants-gpu/variant_check $X $L/m.txt 2>&1 | grep -v "^ok\|^PASS" | tail -5; done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
head -1 $L/m.txt > $L/m1.txt
timeout 200 $SAN --tool memcheck --print-limit 5 build-gpu/test/variants-gpu/variant_check $X $L/m1.txt > $L/memcheck.log 2>&1; echo "memcheck rc=$?"
grep -v "^=========     \(Host Frame\|#\)" $L/memcheck.log | head -40
cp $X/nvcc/reduce.ptx $L/reduce-xformed.ptx
