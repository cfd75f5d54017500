#!/usr/bin/env bash
# Forty-sixth session, call f: slice variants that load the grid with begin
# and end, before the branch on end (slice1load.patch): variant_overhead
# over the MLP's step, the plugin's PTX of main (smemgrid/mlp, call d's
# "new") against the patched plugin's (slice1load/mlp), in one build (the
# runtime is the same), interleaved, four rounds; then the GPU tests of
# this tree (the corpus regenerated with its plugin).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
OLD=$R/docs/data/h100-2026-11-28a/smemgrid; NEW=$R/docs/data/h100-2026-11-28a/slice1load
for r in 1 2 3 4; do
  timeout 100 build-gpu/bench/variant_overhead $OLD bench/manifests/colocation-mlp.txt > $L/old$r.txt 2>&1
  timeout 100 build-gpu/bench/variant_overhead $NEW bench/manifests/colocation-mlp.txt > $L/new$r.txt 2>&1
  echo "mlp round $r rc=$? $(( $(date +%s)-t0 ))s"
done
python3 docs/data/h100-2026-11-27g/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/old*.txt $L/new*.txt | grep -E "txt|slice|sched" | tee $L/summary.txt
for f in $L/new1.txt $L/old1.txt; do echo "== $f"; cut -c31-60,86-100,150-200 $f; done
timeout 250 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -10
grep -E "[0-9]+ passed, [0-9]+ failed|exactly.once.*checks" $L/ctest.log | head -12
gzip -f $L/ctest.log
cd $OUT && tar czf f.tgz f && rm -rf f
