#!/usr/bin/env bash
# Fifty-sixth session, call e (an H200): call d again after its review. Each
# timed run of s-runs and p-runs is now queued whole behind a word the host
# writes (HeldStart) before the GPU starts it, so that the host's launch rate
# cannot pace it, and the pairs alternate which side runs first. The MLP step
# (old/, the plugin's PTX as main emits it), four rounds, and the corpus and
# Triton kernels through baton-ptx, one round.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; D=$R/docs/data/h200-2026-11-28k; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for r in 1 2 3 4; do
  timeout 60 build-gpu/bench/variant_overhead $D/old bench/manifests/colocation-mlp.txt > $L/mlp$r.txt 2>&1
done
python3 docs/data/h100-2026-11-27g/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/mlp[0-9].txt | grep -E "txt|s-runs|sched|p-runs" | tee $L/mlp-summary.txt
for r in 1 2 3 4; do awk '/^mlp\//{printf "%s %s %s/%s ", substr($2,20,10), $6, $(NF-2), $NF}' $L/mlp$r.txt; echo; done
bash scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx build-xformed test/corpus test/variants-gpu | tail -1
M="test/variants-gpu/kernels/manifest.txt test/corpus/manifest.txt test/corpus/triton-manifest.txt"
for r in 1; do
  timeout 100 build-gpu/bench/variant_overhead build-xformed $M > $L/corpus$r.txt 2>&1
  echo "corpus $r rc=$? $(( $(date +%s)-t0 ))s"; grep 'geometric' $L/corpus$r.txt
done
gzip -f $L/corpus*.txt
cd $OUT && tar czf e.tgz e && rm -rf e
