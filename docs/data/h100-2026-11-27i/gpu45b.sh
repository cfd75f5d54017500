#!/usr/bin/env bash
# Forty-fifth session, call b: shares every thread works out itself. The
# GPU tests on the new variants (both compilers; the corpus regenerated
# with the new plugin), then variant_overhead over the MLP's step with the
# plugin's PTX before (h100-2026-11-27h/mlp) and after (this directory's
# mlp/), interleaved, three rounds each.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
OLD=$R/docs/data/h100-2026-11-27h; NEW=$R/docs/data/h100-2026-11-27i
for r in 1 2 3; do
  timeout 100 build-gpu/bench/variant_overhead $OLD bench/manifests/colocation-mlp.txt > $L/old$r.txt 2>&1
  timeout 100 build-gpu/bench/variant_overhead $NEW bench/manifests/colocation-mlp.txt > $L/new$r.txt 2>&1
  echo "round $r rc=$? $(( $(date +%s)-t0 ))s"
done
python3 docs/data/h100-2026-11-27g/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/old*.txt $L/new*.txt | grep -E "txt|slice|sched|nofirst" | tee $L/summary.txt
for f in $L/new1.txt $L/old1.txt; do echo "== $f"; cut -c31-60,86-100,150-200 $f; done
timeout $(( 570 - ($(date +%s)-t0) )) ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -10
grep -E "[0-9]+ passed, [0-9]+ failed" $L/ctest.log | head -12
gzip -f $L/ctest.log
cd $OUT && tar czf b.tgz b && rm -rf b
