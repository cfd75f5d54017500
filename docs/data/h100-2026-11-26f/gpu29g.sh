#!/usr/bin/env bash
# Twenty-ninth session, call g: task ABI 5 in its final form (a void claim
# gives its blocks back, so `next` stays the checkpoint; no `voided`
# field). GPU tests, the clang custom-op demo and the colocation MLP's
# training check (built here with the new plugin and carried), preemption
# latency, then variant_overhead_runtime against ABI 4 (cf360bf: this tree
# with build-scratch/c29/claim.patch reversed) on the manifest of call b,
# interleaved.
# Usage: bash docs/data/h100-2026-11-26f/gpu29g.sh (carry .deps, build-scratch)
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; E=build-scratch/c29; L=$OUT/g; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
T="--target baton-ptx variant_overhead_runtime preempt_latency"
if [ ! -x build-old/bench/preempt_latency ]; then
  patch -R -p1 < $E/claim.patch > /dev/null || exit 1
  (cmake -S . -B build-old $CFG && cmake --build build-old $T) > $L/build-old.log 2>&1 || { patch -p1 < $E/claim.patch; exit 1; }
  patch -p1 < $E/claim.patch > /dev/null || exit 1
fi
echo "built $(( $(date +%s)-t0 ))s"
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|SchedulerService|SchedulerSim' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Timeout" $L/ctest.log | head -20
cp build-gpu/Testing/Temporary/LastTest.log $L/ctest-full.log; gzip -f $L/ctest-full.log
zgrep -E "passed, [0-9]+ failed|^ok   " $L/ctest-full.log.gz | head -40
zgrep -E "pauses [0-9]+$" $L/ctest-full.log.gz | awk '{s+=$NF} END {print "variant_check pauses:", s}'
d=$E/demos
timeout 100 examples/clang-custom-op/run.sh $d/custom_op_demo $d/custom_op_demo_plain build-gpu/demo-run $d/custom_op_demo_lazy > $L/clang-demo.log 2>&1; echo "clang demo rc=$?"
grep -E "PASS|FAIL|checks" $L/clang-demo.log | tail -4
timeout 200 python3 bench/colocation/check_train.py $E/coloc/libbaton_train_mlp.so > $L/check_train.log 2>&1; echo "check_train rc=$?"; tail -3 $L/check_train.log
echo "tests done $(( $(date +%s)-t0 ))s"
mkdir -p $E/src/inductor && cp test/corpus/inductor/lm_head_layer_norm_mm.ptx $E/src/inductor/lmhead.ptx
for t in old new; do
  b=build-gpu; [ $t = old ] && b=build-old
  X=$b/xg-$t
  BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh $b/tools/baton-ptx/baton-ptx $X/triton test/corpus/triton > $L/transform-$t.log 2>&1
  scripts/transform-tree.sh $b/tools/baton-ptx/baton-ptx $X/nvcc test/corpus/nvcc >> $L/transform-$t.log 2>&1
  BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh $b/tools/baton-ptx/baton-ptx $X/inductor $E/src/inductor >> $L/transform-$t.log 2>&1
  scripts/transform-tree.sh $b/tools/baton-ptx/baton-ptx $X/vg test/variants-gpu >> $L/transform-$t.log 2>&1
done
for t in new old; do
  b=build-gpu; [ $t = old ] && b=build-old
  timeout 60 $b/bench/preempt_latency $b/xg-$t/vg/kernels/blocks.ptx 50 > $L/preempt_latency-$t.log 2>&1
done
for r in 1 2 3; do
  for t in old new; do
    b=build-gpu; [ $t = old ] && b=build-old
    left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 30 ] || break 2
    timeout $left $b/bench/runtime/variant_overhead_runtime $E/manifest.txt $b/xg-$t 5 >> $L/vo-$t.log 2>&1
    echo "round $r $t rc=$? $(( $(date +%s)-t0 )) s"
  done
done
for t in old new; do echo "== $t"; grep -v "^variant_overhead on\|^module" $L/vo-$t.log | awk '{print $2, $3, $6, $7}' | cut -c1-70; done
for t in old new; do echo "== $t"; grep -E "^[0-9]+ " $L/preempt_latency-$t.log | cut -c1-90; done
echo "total $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf g.tgz g && rm -rf g
