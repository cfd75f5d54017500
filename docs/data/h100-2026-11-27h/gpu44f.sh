#!/usr/bin/env bash
# Forty-fourth session, call f: the GPU tests and the MLP's variant
# overhead (as call c) on 09805d7: first shares strided (worker w runs
# begin + w + k*W), only for launches whose workers all fit at once and
# variants with their ABI marker; exactly_once runs an older-ABI variant.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
D=$R/docs/data/h100-2026-11-27h
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for r in 1 2 3; do
  timeout 150 build-gpu/bench/variant_overhead $D bench/manifests/colocation-mlp.txt > $L/round$r.txt 2>&1
  echo "round $r rc=$? $(( $(date +%s)-t0 ))s"
done
python3 docs/data/h100-2026-11-27g/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/round*.txt | tee $L/summary.txt
cat $L/round1.txt
timeout $(( 585 - ($(date +%s)-t0) )) ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -10
grep -E "[0-9]+ passed, [0-9]+ failed" $L/ctest.log | head -12
gzip -f $L/ctest.log
cd $OUT && tar czf f.tgz f && rm -rf f
