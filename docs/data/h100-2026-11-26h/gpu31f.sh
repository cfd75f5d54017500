#!/usr/bin/env bash
# Thirty-first session, call f: check_graphs.py twice (each with a cache of
# its own), after its waits for variants skip autotuning's discarded
# candidates (launched_since), which made call d's lc-trees spend its time
# limit preparing them.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
export PYTHONPATH=$R/build-torch/python
cmake --build build-torch --target baton_python > $L/build.log 2>&1 || { tail $L/build.log; exit 1; }
for i in 1 2; do
  BATON_CACHE_DIR=$L/cache$i timeout 280 python3 bench/torch/check_graphs.py --out $L/r$i --timeout 240 > $L/r$i.log 2>&1; echo "run $i rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "^(be-trees|be-manual|lc-trees) " $L/r$i.log
  rm -rf $L/cache$i
done
cd $OUT && tar czf f.tgz f && rm -rf f
