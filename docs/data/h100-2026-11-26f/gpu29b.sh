#!/usr/bin/env bash
# Twenty-ninth session, call b: task ABI 5 against ABI 4 (main before it,
# cf360bf) when nothing preempts and when everything is paused. ABI 4's
# tree is this one with build-scratch/c29/claim.patch (git diff cf360bf --
# include lib runtime bench test/variants-gpu) reversed; each tree's
# baton-ptx transforms the kernels for its own runtime. Then
# variant_overhead_runtime (PTB column, late claims of one block) on the
# training sizes, the LM-head-shaped corpus matmul and Inductor's LM-head
# template (manifest of session 28's call c), trees interleaved, and the
# ABI-level preemption latency of both.
# Usage: bash docs/data/h100-2026-11-26f/gpu29b.sh (carry .deps, build-scratch)
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; E=build-scratch/c29; L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
T="--target baton-ptx variant_overhead_runtime preempt_latency"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu $T) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
patch -R -p1 < $E/claim.patch > /dev/null || exit 1
(cmake -S . -B build-old $CFG && cmake --build build-old $T) > $L/build-old.log 2>&1 || { tail -20 $L/build-old.log; patch -p1 < $E/claim.patch; exit 1; }
patch -p1 < $E/claim.patch > /dev/null || exit 1
echo "built: $(( $(date +%s)-t0 )) s"
mkdir -p $E/src/inductor && cp test/corpus/inductor/lm_head_layer_norm_mm.ptx $E/src/inductor/lmhead.ptx
for t in old new; do
  b=build-gpu; [ $t = old ] && b=build-old
  X=$b/x-$t
  BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh $b/tools/baton-ptx/baton-ptx $X/triton test/corpus/triton > $L/transform-$t.log 2>&1
  scripts/transform-tree.sh $b/tools/baton-ptx/baton-ptx $X/nvcc test/corpus/nvcc >> $L/transform-$t.log 2>&1
  BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh $b/tools/baton-ptx/baton-ptx $X/inductor $E/src/inductor >> $L/transform-$t.log 2>&1
  scripts/transform-tree.sh $b/tools/baton-ptx/baton-ptx $X/vg test/variants-gpu >> $L/transform-$t.log 2>&1
done
grep -c "atom.global.add.u64" build-gpu/x-new/nvcc/elementwise.ptx build-old/x-old/nvcc/elementwise.ptx
echo "transformed: $(( $(date +%s)-t0 )) s"
for r in 1 2 3; do
  for t in old new; do
    b=build-gpu; [ $t = old ] && b=build-old
    left=$(( 480 - ($(date +%s)-t0) )); [ $left -gt 40 ] || break 2
    timeout $left $b/bench/runtime/variant_overhead_runtime $E/manifest.txt $b/x-$t 5 >> $L/vo-$t.log 2>&1
    echo "round $r $t rc=$? $(( $(date +%s)-t0 )) s"
  done
done
for t in old new; do
  b=build-gpu; [ $t = old ] && b=build-old
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 20 ] || break
  timeout $((left / 2)) $b/bench/preempt_latency $b/x-$t/vg/kernels/blocks.ptx 50 > $L/preempt_latency-$t.log 2>&1
done
for t in old new; do echo "== $t"; grep -v "^variant_overhead on\|^module" $L/vo-$t.log | awk '{print $2, $3, $6, $7}' | cut -c1-70; done
for t in old new; do echo "== $t"; grep -E "^[0-9]+ " $L/preempt_latency-$t.log | cut -c1-90; done
echo "total $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf b.tgz b && rm -rf b
