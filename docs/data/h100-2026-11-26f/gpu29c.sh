#!/usr/bin/env bash
# Twenty-ninth session, call c (builds both trees as call b does): why Inductor's LM-head template is slower under
# ABI 5 (1.07x against 1.02x). Timing-only forms of this tree's PTB variant
# of it, made on the CPU machine by sed before each claim's
#   cvt.u64.u32 %baton_word, %baton_size;
# load: a volatile load of `preempt` that the claim's size depends on (the
# old second round trip, kept in the new protocol); sleep: nanosleep 500 ns.
# variant_overhead_runtime with --claims (late and early claims of 1-8
# blocks), ABI 4's variant (build-old) and the three forms interleaved.
set -u
cd "$(dirname "$0")/../../.."
E=build-scratch/c29; L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
R=$PWD
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
T="--target baton-ptx variant_overhead_runtime"
# A fresh machine: build both trees as call b does.
if [ ! -x build-old/bench/runtime/variant_overhead_runtime ]; then
  (cmake -S . -B build-gpu $CFG && cmake --build build-gpu $T) > $L/build.log 2>&1 || exit 1
  patch -R -p1 < $E/claim.patch > /dev/null || exit 1
  (cmake -S . -B build-old $CFG && cmake --build build-old $T) > $L/build-old.log 2>&1 || { patch -p1 < $E/claim.patch; exit 1; }
  patch -p1 < $E/claim.patch > /dev/null || exit 1
  mkdir -p $E/src/inductor && cp test/corpus/inductor/lm_head_layer_norm_mm.ptx $E/src/inductor/lmhead.ptx
  BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh build-old/tools/baton-ptx/baton-ptx build-old/x-old/inductor $E/src/inductor > $L/transform-old.log 2>&1
  echo "built: $(( $(date +%s)-t0 )) s"
fi
for r in 1 2 3; do
  for v in old new load sleep; do
    left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 30 ] || break 2
    if [ $v = old ]; then b=build-old; X=build-old/x-old; else b=build-gpu; X=$E/lm/$v; fi
    timeout $left $b/bench/runtime/variant_overhead_runtime $E/lm/manifest.txt $X 5 --claims >> $L/vo-$v.log 2>&1
    echo "round $r $v rc=$? $(( $(date +%s)-t0 )) s"
  done
done
for v in old new load sleep; do echo "== $v"; grep -v "^variant_overhead on" $L/vo-$v.log | grep -v "^$" | cut -c1-150 | head -12; done
cd $OUT && tar czf c.tgz c && rm -rf c
