#!/usr/bin/env bash
# Twenty-fourth session, call e: check_train with the split MLP, timed per
# child, and the 8-split time storm traced if it runs long.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/e; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
LIB=$PWD/build-scratch/coloc/libbaton_train_mlp.so
timeout 400 python3 bench/colocation/check_train.py $LIB > $L/check_train.log 2>&1; echo "check_train rc=$? $(( $(date +%s)-t0 ))s"
cut -c1-200 $L/check_train.log | grep -v '^baton' | tail -16
if ! grep -q '8 split(s), time (' $L/check_train.log; then
  BATON_SCHEDULE=best-effort BATON_TRACE=1 timeout 60 python3 bench/colocation/check_train.py --child $LIB time 8 2>&1 | tail -300 > $L/trace-tail.log
  echo "traced child rc=${PIPESTATUS[0]}"; tail -5 $L/trace-tail.log | cut -c1-200
fi
cd $OUT && tar czf e.tgz e && rm -rf e
