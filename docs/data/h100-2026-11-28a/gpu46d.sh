#!/usr/bin/env bash
# Forty-sixth session, call d: the PTB loop with the grid copied to its
# state in shared memory (smemgrid.patch, ABI 6) against main (the patch
# reversed): variant_overhead over the MLP's step, main's plugin PTX
# (h100-2026-11-27h/mlp) in main's build against the patched plugin's
# (smemgrid/mlp) in the patched build, interleaved, three rounds; then
# variant_overhead_runtime on the training sizes, each tree's baton-ptx
# output, interleaved, two rounds.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
P=docs/data/h100-2026-11-28a/smemgrid.patch
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built new $(( $(date +%s)-t0 ))s"
patch -R -p1 < $P > /dev/null || { echo "patch -R failed"; exit 1; }
(cmake -S . -B build-old $CFG && cmake --build build-old --target baton-ptx variant_overhead variant_overhead_runtime) > $L/build-old.log 2>&1 || { tail -20 $L/build-old.log; patch -p1 < $P; exit 1; }
patch -p1 < $P > /dev/null || { echo "patch failed"; exit 1; }
echo "built old $(( $(date +%s)-t0 ))s"
for t in old new; do
  b=build-gpu; [ $t = old ] && b=build-old
  BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh $b/tools/baton-ptx/baton-ptx $b/xf/triton test/corpus/triton > $L/transform-$t.log 2>&1
  scripts/transform-tree.sh $b/tools/baton-ptx/baton-ptx $b/xf/nvcc test/corpus/nvcc >> $L/transform-$t.log 2>&1
done
OLD=$R/docs/data/h100-2026-11-27h; NEW=$R/docs/data/h100-2026-11-28a/smemgrid
for r in 1 2 3; do
  timeout 100 build-old/bench/variant_overhead $OLD bench/manifests/colocation-mlp.txt > $L/old$r.txt 2>&1
  timeout 100 build-gpu/bench/variant_overhead $NEW bench/manifests/colocation-mlp.txt > $L/new$r.txt 2>&1
  echo "mlp round $r rc=$? $(( $(date +%s)-t0 ))s"
done
python3 docs/data/h100-2026-11-27g/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/old*.txt $L/new*.txt | grep -E "txt|slice|sched|nofirst" | tee $L/summary.txt
for f in $L/new1.txt $L/old1.txt; do echo "== $f"; cut -c31-60,86-100,150-200 $f; done
for t in old new old new; do
  left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 30 ] || break
  b=build-gpu; [ $t = old ] && b=build-old
  timeout $left $b/bench/runtime/variant_overhead_runtime bench/manifests/training-sizes.txt $b/xf 10 >> $L/vo-$t.log 2>&1
  echo "vo $t $(( $(date +%s)-t0 ))s"
done
for t in old new; do echo "== $t"; grep -v '^variant_overhead on' $L/vo-$t.log | cut -c1-110; done
cd $OUT && tar czf d.tgz d && rm -rf d
