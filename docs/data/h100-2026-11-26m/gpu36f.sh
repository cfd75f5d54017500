#!/usr/bin/env bash
# Thirty-sixth session, call f: issue 5's whole benchmark on the H100 with
# the session's final scheduler (block estimates per occupancy): every
# default system, both models, loads 10-90%, two rounds, then the plots.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
cd bench/colocation
timeout 570 python3 colocate.py --lib $R/build/bench/colocation/libbaton_train_mlp.so --out $L/coloc --rounds 2 --deadline 540 > $L/colocation.log 2>&1
echo "colocate rc=$? ($(( $(date +%s)-t0 ))s)"
python3 plot.py $L/coloc/results.json $L/coloc > $L/plot.log 2>&1; echo "plot rc=$?"
gzip -f $L/coloc/latencies.json
sed -n '/^====/,$p' $L/colocation.log | cut -c1-170 | head -60
cd $OUT && tar czf f.tgz f && rm -rf f
