#!/usr/bin/env bash
# #5: what the preemption bound buys under time sharing: baton-time at 50%
# load with BATON_PREEMPTION_BOUND_US = 100 (default), 50, 25; interleaved.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/f; mkdir -p $L
lib=$PWD/build-scratch/coloc/libbaton_train_mlp.so
cd bench/colocation
for r in 1 2; do
  for b in 100 50 25; do
    left=$(( 575 - ($(date +%s)-t0) ))
    [ $left -lt 60 ] && break 2
    BATON_PREEMPTION_BOUND_US=$b timeout $left python3 colocate.py --lib $lib --out $L/b$b-$r --loads 0.5 --systems alone,baton-time --rounds 1 --deadline $((left-10)) > $L/b$b-$r.log 2>&1
    echo "== bound=$b run $r rc=$? ($(( $(date +%s)-t0 ))s)"
    grep -E "^baton-time " $L/b$b-$r.log | cut -c1-60
  done
done
echo "total $(( $(date +%s)-t0 ))s"
