#!/usr/bin/env bash
# Twenty-second session, call A: the PTB loop with its claim in shared memory (working tree): GPU tests,
# memcheck on the drain kernel, and the slot-sequence probe on HEAD's, experiment 3's and the new transform.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $L/gpu.txt 2>&1; cat $L/gpu.txt
git log --oneline -1 > $L/commit.txt; git diff > $L/diff.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
(cd build-gpu && timeout 260 ctest -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "tests passed|\*\*\*Failed|Failed  |Passed  " $L/ctest.log | tail -16
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
VC=build-gpu/test/variants-gpu/variant_check
X=build-gpu/xf-new; scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $X test/corpus > /dev/null 2>&1
for i in 1 2; do timeout 100 $SAN --tool memcheck --print-limit 4 $VC $X build-scratch/probe/m1.txt > $L/memcheck-new-$i.log 2>&1; echo "new memcheck $i rc=$?"; grep -E "passed|ERROR SUMMARY" $L/memcheck-new-$i.log | head -3; done
timeout 100 $SAN --tool synccheck $VC $X build-scratch/probe/m1.txt > $L/synccheck-new.log 2>&1; echo "new synccheck rc=$?"; grep -E "passed|ERROR SUMMARY" $L/synccheck-new.log | head -3
for v in head exp3 new; do for i in 1 2 3; do
  timeout 60 $VC build-scratch/probe/$v build-scratch/probe/m1.txt > $L/probe-$v-$i.log 2>&1; rc=$?
  echo "probe $v $i rc=$rc stale-slot reads: $(grep -c '^DBG' $L/probe-$v-$i.log) $(grep -E 'passed' $L/probe-$v-$i.log | tail -1)"
done; grep -h '^DBG' $L/probe-$v-*.log | head -5; done
timeout 100 $SAN --tool memcheck --print-limit 4 $VC build-scratch/probe/plain-exp3 build-scratch/probe/m1.txt > $L/memcheck-exp3.log 2>&1; echo "exp3 memcheck rc=$?"; grep -E "passed|ERROR SUMMARY" $L/memcheck-exp3.log | head -3
echo "done $(( $(date +%s)-t0 ))s"
rm -f $L/build.log $L/cfg.log
