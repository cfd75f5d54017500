#!/usr/bin/env bash
# Twenty-ninth session, call i (builds both trees as call g does): more timing-only forms of Inductor's LM-head
# template as ABI 5 PTB, made on the CPU machine from this tree's variant:
# sleep1000 and sleep2000 (nanosleep before each claim's atomic, as call
# c's sleep with 500 ns), u32 (the claim a 32-bit atomic on `next` that
# returns no flag: ABI 4's claim without its load). PTB column, ABI 4 and
# the forms interleaved, three rounds.
set -u
cd "$(dirname "$0")/../../.."
E=build-scratch/c29; L=$OUT/i; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
R=$PWD
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
T="--target baton-ptx variant_overhead_runtime"
# A fresh machine: build both trees as call g does.
if [ ! -x build-old/bench/runtime/variant_overhead_runtime ]; then
  (cmake -S . -B build-gpu $CFG && cmake --build build-gpu $T) > $L/build.log 2>&1 || exit 1
  patch -R -p1 < $E/claim.patch > /dev/null || exit 1
  (cmake -S . -B build-old $CFG && cmake --build build-old $T) > $L/build-old.log 2>&1 || { patch -p1 < $E/claim.patch; exit 1; }
  patch -p1 < $E/claim.patch > /dev/null || exit 1
  mkdir -p $E/src/inductor && cp test/corpus/inductor/lm_head_layer_norm_mm.ptx $E/src/inductor/lmhead.ptx
  BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh build-old/tools/baton-ptx/baton-ptx build-old/xg-old/inductor $E/src/inductor > $L/transform-old.log 2>&1
  echo "built: $(( $(date +%s)-t0 )) s"
fi
for r in 1 2 3; do
  for v in old new sleep1000 sleep2000 u32; do
    left=$(( 330 - ($(date +%s)-t0) )); [ $left -gt 20 ] || break 2
    if [ $v = old ]; then b=build-old; X=build-old/xg-old; else b=build-gpu; X=$E/lm/$v; fi
    timeout $left $b/bench/runtime/variant_overhead_runtime $E/lm/manifest.txt $X 5 >> $L/vo-$v.log 2>&1
  done
  echo "round $r $(( $(date +%s)-t0 )) s"
done
for v in old new sleep1000 sleep2000 u32; do echo "$v: $(grep lmhead $L/vo-$v.log | awk '{printf "%s/%s=%s ", $6, $3, $7}')"; done
cd $OUT && tar czf i.tgz i && rm -rf i
