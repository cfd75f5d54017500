#!/usr/bin/env bash
# Forty-fourth session, call b (issue 5): the colocation benchmark's
# training alone and baton-time at 10, 50 and 90% load, with PTB first
# shares (the default) and without (BATON_FIRST_SHARES=0), two rounds, the
# settings interleaved, the same service times (so the same arrival rates).
# The MLP library is this tree's, built with the clang plugin here.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
cd bench/colocation
for r in 1 2; do
  for F in 1 0; do
    BATON_FIRST_SHARES=$F timeout 150 python3 colocate.py --lib $LIB --out $L/r$r-f$F --rounds 1 --deadline 140 --loads 0.1,0.5,0.9 --service-ms bert=0.29,cnn=0.90 --systems alone,baton-train-alone,baton-time > $L/r$r-f$F.log 2>&1
    echo "round $r first shares $F rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-f$F/latencies.json $L/r$r-f$F/children.log
  done
done
python3 $R/docs/data/h100-2026-11-27h/summary_shares.py $L 2>&1 | tee $L/summary.txt
cd $OUT && tar czf b.tgz b && rm -rf b
