#!/usr/bin/env bash
# Twenty-fifth session, call k (H100): reqphases' time mode run the way the
# two hangs happened (timeout in front, one after another), HEAD's runtime
# and the change alternating; a run past 40 s gets SIGUSR1 (every Python
# thread's stack) and is killed 5 s later.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/k; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
i=0
for v in new head new head new head new head new head new head new head new head new head; do
  left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 50 ] || break
  i=$((i+1)); lib=$R/build-scratch/coloc/libbaton_train_mlp.so
  [ $v = head ] && lib=$R/build-scratch/coloc-head/libbaton_train_mlp.so
  timeout -s USR1 -k 5 40 python3 build-scratch/probe/reqphases.py $lib time 3 > $L/rp-$i-$v.log 2>&1
  rc=$?; echo "run $i $v rc=$rc $(( $(date +%s)-t0 ))s: $(grep -E 'latency' $L/rp-$i-$v.log | tr -s ' ')"
  [ $rc = 0 ] || grep -v -i warn $L/rp-$i-$v.log | tail -50
done
cd $OUT && tar czf k.tgz k && rm -rf k
