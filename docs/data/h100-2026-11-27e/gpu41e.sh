#!/usr/bin/env bash
# Forty-first session, call e (issue 5): baton-time over every load with the
# preemption bound at its default (100 us) and at 1000 us, which the
# thirty-fifth session measured only at 10% and 50%. Two rounds, the
# bounds interleaved, the same service times (so the same arrival rates).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
cd bench/colocation
for r in 1 2; do
  for B in 100 1000; do
    BATON_PREEMPTION_BOUND_US=$B timeout 150 python3 colocate.py --lib $LIB --out $L/r$r-b$B --rounds 1 --deadline 140 --service-ms bert=0.29,cnn=0.90 --systems alone,baton-time > $L/r$r-b$B.log 2>&1
    echo "round $r bound $B rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-b$B/latencies.json $L/r$r-b$B/children.log
  done
done
python3 $R/docs/data/h100-2026-11-27e/summary_loads.py $L 2>&1 | tee $L/summary.txt
cd $OUT && tar czf e.tgz e && rm -rf e
