#!/usr/bin/env bash
# As run: with build-scratch/claim28 carried, made on the CPU machine by
#   E=build-scratch/claim28 B=build/tools/baton-ptx/baton-ptx
#   mkdir -p $E/src/inductor && cp test/corpus/inductor/lm_head_layer_norm_mm.ptx $E/src/inductor/lmhead.ptx
#   BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh $B $E/base/triton test/corpus/triton
#   scripts/transform-tree.sh $B $E/base/nvcc test/corpus/nvcc
#   BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh $B $E/base/inductor $E/src/inductor
#   cp docs/data/h100-2026-11-26e/c/manifest.txt $E/
# and a copy of base per form, edited with sed on the preempt load
#   ld.volatile.global.u32 %baton_nv, [%baton_task+24];
# (noload: mov.u32 %baton_nv, 0; relaxed: ld.relaxed.gpu.global.u32;
# cv: ld.global.cv.u32) or on the claim's predicate (conc: the atom's
# "@!%baton_preempted " removed; ptxas still orders the atomic after the
# load, whose result register it overwrites, so conc measured nothing new).
# Twenty-eighth session, call d (H100): the PTB claim's preempt load in
# other forms. Four transforms of the same kernels (this tree's baton-ptx,
# made on the CPU machine): base (ld.volatile, i.e. relaxed.sys); relaxed
# (ld.relaxed.gpu); cv (ld.global.cv); noload, no preempt load at all
# (timing only). variant_overhead_runtime (PTB column, late claims of one block),
# the three interleaved, on the training sizes, the LM-head-shaped corpus
# matmul and Inductor's own LM-head template (from this session's call b).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; E=build-scratch/claim28; L=$OUT/d; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target variant_overhead_runtime) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build: $(( $(date +%s)-t0 )) s"
for v in base relaxed cv; do /usr/local/cuda/bin/ptxas -arch=sm_90a $E/$v/nvcc/elementwise.ptx -o /tmp/e-$v.cubin && /usr/local/cuda/bin/cuobjdump -sass -fun saxpy__baton_ptb /tmp/e-$v.cubin | grep -E "LDG|ATOM|RED" > $L/sass-$v.txt; echo "$v: $(head -3 $L/sass-$v.txt | tr -s ' ' | tr '\n' ';')"; done
VO=build-gpu/bench/runtime/variant_overhead_runtime
for r in 1 2 3; do
  for v in base relaxed cv noload; do
    left=$(( 500 - ($(date +%s)-t0) )); [ $left -gt 30 ] || break 2
    timeout $left $VO $E/manifest.txt $E/$v 5 >> $L/vo-$v.log 2>&1
    echo "round $r $v rc=$? $(( $(date +%s)-t0 )) s"
  done
done
for v in base relaxed cv noload; do echo "== $v"; grep -v "^variant_overhead on\|^module\|geometric" $L/vo-$v.log | awk '{print $2, $3, $7}' | cut -c1-60; done
cd $OUT && tar czf d.tgz d && rm -rf d
