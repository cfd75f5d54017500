#!/usr/bin/env bash
# Forty-third session, call i: the final tree (review mends): the GPU tests;
# variant_overhead once more with its `sched` column from the original's
# residency; the anatomy probe once with its new exactly-once check.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/i; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for v in before after; do
  root=docs/data/h100-2026-11-27f; [ $v = after ] && root=docs/data/h100-2026-11-27g
  timeout 150 build-gpu/bench/variant_overhead $root bench/manifests/colocation-mlp.txt > $L/$v.txt 2>&1
  echo "$v rc=$? $(( $(date +%s)-t0 ))s"
done
python3 docs/data/h100-2026-11-27g/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/before.txt $L/after.txt | grep -E "txt|ptb |sched|chunks"
bench/ptb_anatomy/run.sh 262144 1048576 4194304 > $L/anatomy.txt 2>&1; echo "anatomy rc=$?"; tail -4 $L/anatomy.txt
timeout $(( 585 - ($(date +%s)-t0) )) ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -10
grep -E "[0-9]+ passed, [0-9]+ failed" $L/ctest.log | head -12
gzip -f $L/ctest.log
cd $OUT && tar czf i.tgz i && rm -rf i
