#!/usr/bin/env bash
# Forty-second session, call e: issue 5's "variant overhead when never
# preempted" over the colocation benchmark's own training loop: every
# distinct launch of train_mlp.cu's step (bench/manifests/colocation-mlp.txt)
# as the original, the slice variant and the PTB variant in six claim modes,
# from the clang plugin's PTX (mlp/train_mlp.ptx, built here from f66b6b0).
# Three rounds; weighted by launches a step by mlp_weighted.py.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target variant_overhead) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for r in 1 2 3; do
  timeout 120 build-gpu/bench/variant_overhead docs/data/h100-2026-11-27f bench/manifests/colocation-mlp.txt > $L/round$r.txt 2>&1
  echo "round $r rc=$? $(( $(date +%s)-t0 ))s"
done
python3 docs/data/h100-2026-11-27f/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/round*.txt | tee $L/summary.txt
cd $OUT && tar czf e.tgz e && rm -rf e
