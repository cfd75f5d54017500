#!/usr/bin/env bash
# Fifty-first session, call b (an H200): issue 5's whole benchmark on main
# (928d160), the first time on the H200 since the twenty-fourth session:
# colocate.py with every default system, loads 10-90%, 1 s windows, two
# rounds, service times measured by the first round's `alone`; then
# plot.py. Carries build/bench/colocation (the MLP built here with the
# clang plugin).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
cd bench/colocation
timeout $(( 585 - ($(date +%s)-t0) )) python3 colocate.py --lib $LIB --out $L/coloc --rounds 2 --deadline $(( 545 - ($(date +%s)-t0) )) > $L/colocation.log 2>&1
echo "colocate rc=$? ($(( $(date +%s)-t0 ))s)"
python3 plot.py $L/coloc/results.json $L/coloc > $L/plot.log 2>&1; echo "plot rc=$?"
gzip -f $L/coloc/latencies.json $L/coloc/children.log 2>/dev/null
tail -32 $L/colocation.log
cd $OUT && tar czf b.tgz b && rm -rf b
