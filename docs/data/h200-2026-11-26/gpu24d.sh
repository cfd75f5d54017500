#!/usr/bin/env bash
# Twenty-fourth session, call d: the MLP with split inner loops (shorter
# best-effort blocks): check_train (both forms), then colocate.py at 10% and
# 50% load with 1, 8 and 16 splits (issue 5); gpt-dyn check retried.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/d; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
LIB=$PWD/build-scratch/coloc/libbaton_train_mlp.so
timeout 200 python3 bench/colocation/check_train.py $LIB > $L/check_train.log 2>&1; echo "check_train rc=$? $(( $(date +%s)-t0 ))s"
grep -E 'PASS|FAIL|failed' $L/check_train.log
for s in 8 1 16; do
  left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 100 ] || break
  (cd bench/colocation && timeout $left python3 colocate.py --lib $LIB --out $L/s$s --systems alone,baton-train-alone,baton-time --loads 0.1,0.5 --rounds 2 --splits $s --deadline $((left-20)) > $L/coloc-s$s.log 2>&1)
  echo "coloc splits=$s rc=$? $(( $(date +%s)-t0 ))s"; tail -14 $L/coloc-s$s.log
done
cd $OUT && tar czf d.tgz d && rm -rf d
