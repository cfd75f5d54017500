#!/usr/bin/env bash
# Thirty-fifth session, call a: issue 5's benchmark with Baton across two
# processes (the new systems baton-procs and baton-procs-mps: training
# scheduled best-effort in one process, inference announcing each request in
# the GPU's registry and ending it on its stream) beside the one-process
# time sharing and MPS, both models, loads 10% and 50%, three rounds.
# The MLP library is built here (clang plugin) and carried.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
cd bench/colocation
timeout 560 python3 colocate.py --lib $R/build/bench/colocation/libbaton_train_mlp.so --out $L/coloc --rounds 3 --deadline 520 --loads 0.1,0.5 --systems alone,baton-time,baton-procs,baton-procs-mps,mps > $L/colocation.log 2>&1
echo "colocate rc=$? ($(( $(date +%s)-t0 ))s)"
python3 plot.py $L/coloc/results.json $L/coloc > $L/plot.log 2>&1; echo "plot rc=$?"
gzip -f $L/coloc/latencies.json $L/coloc/children.log
sed -n '/^====/,$p' $L/colocation.log | cut -c1-170 | head -40
cd $OUT && tar czf a.tgz a && rm -rf a
