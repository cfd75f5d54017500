#!/usr/bin/env bash
# Twenty-first session: experiment 3 under memcheck, as is (exp1) and with the loop head comparing v with end again (exp2).
set -u
cd "$(dirname "$0")/.."
L=$OUT/i; mkdir -p $L
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
grep "^nvcc/reduce.ptx reduce_sum_early_return" test/corpus/manifest.txt > $L/m1.txt
for n in 1 2; do
E=build-scratch/exp$n
cmake -S $E -B $E/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg$n.log 2>&1; cmake --build $E/b -j16 --target variant_check baton-ptx > $L/build$n.log 2>&1 || { tail -20 $L/build$n.log; continue; }
X=$E/b/xf; scripts/transform-tree.sh $E/b/tools/baton-ptx/baton-ptx $X test/corpus test/variants-gpu > /dev/null 2>&1
for i in 1 2; do timeout 150 $SAN --tool memcheck --print-limit 2 $E/b/test/variants-gpu/variant_check $X $L/m1.txt > $L/memcheck$n-$i.log 2>&1; echo "exp$n memcheck $i rc=$?"; grep -v "Host Frame" $L/memcheck$n-$i.log | grep -E "Invalid|at |by thread|passed|SUMMARY" | head -6; done
done
rm -f $L/build*.log $L/cfg*.log
