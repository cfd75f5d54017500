#!/usr/bin/env bash
# Thirty-first session, call i: check_graphs.py again, its be-manual and
# lc-trees now compiling (and autotuning) with nothing routed before they
# route every launch: call h's lc-trees spent its time limit in the GPT's
# autotuning, whose benchmark launches were routed on a cold machine.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/i; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake --build build-torch --target baton_python > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=$L/cache timeout 560 python3 bench/torch/check_graphs.py --out $L --timeout 200 > $L/check_graphs.log 2>&1; echo "check_graphs rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^(be-trees|be-manual|lc-trees) |storm_in_flight|train_steps" $L/check_graphs.log | cut -c1-400
rm -rf $L/cache
gzip -f $L/check_graphs.log
cd $OUT && tar czf i.tgz i && rm -rf i
