#!/usr/bin/env bash
# Forty-third session, call e: issue 5's variant overhead over the
# colocation MLP's step (bench/manifests/colocation-mlp.txt), the plugin's
# PTX before (h100-2026-11-27f/mlp, f66b6b0: every claim half a share) and
# after this session's change (h100-2026-11-27g/mlp: a worker's first claim
# takes its whole share), rounds interleaved; variant_overhead now also
# times the PTB variant at the claim chunk the scheduler would choose.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target variant_overhead) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for r in 1 2 3; do
  for v in before after; do
    root=docs/data/h100-2026-11-27f; [ $v = after ] && root=docs/data/h100-2026-11-27g
    timeout 150 build-gpu/bench/variant_overhead $root bench/manifests/colocation-mlp.txt > $L/$v-round$r.txt 2>&1
    echo "$v round $r rc=$? $(( $(date +%s)-t0 ))s"
  done
done
for v in before after; do
  python3 docs/data/h100-2026-11-27g/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/$v-round*.txt
done | tee $L/summary.txt
cat $L/after-round1.txt
