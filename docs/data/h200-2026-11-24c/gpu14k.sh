#!/usr/bin/env bash
# Issue 5's benchmark with task ABI 3: every system, both models, loads
# 10-90%, two rounds, and the plots.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/k; mkdir -p $L
lib=$PWD/build-scratch/coloc/libbaton_train_mlp.so
cd bench/colocation
timeout 560 python3 colocate.py --lib $lib --out $L/coloc --rounds 2 --deadline 520 > $L/colocation.log 2>&1
echo "colocate rc=$? ($(( $(date +%s)-t0 ))s)"
python3 plot.py $L/coloc/results.json $L/coloc > $L/plot.log 2>&1; echo "plot rc=$?"
gzip -f $L/coloc/latencies.json
sed -n '/^====/,$p' $L/colocation.log | cut -c1-150 | head -60
echo "total $(( $(date +%s)-t0 ))s"
