#!/usr/bin/env bash
# A/B: space sharing by vacating SMs (default) against narrower relaunches
# (BATON_VACATE=0), and its effect on time sharing; 50% load, interleaved.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/c; mkdir -p $L
lib=$PWD/build-scratch/coloc/libbaton_train_mlp.so
cd bench/colocation
for r in 1 2 3; do
  for v in 1 0; do
    left=$(( 570 - ($(date +%s)-t0) ))
    [ $left -lt 70 ] && break 2
    BATON_VACATE=$v timeout $left python3 colocate.py --lib $lib --out $L/v$v-$r --loads 0.5 --systems alone,baton-time,baton-space --rounds 1 --deadline $((left-10)) > $L/v$v-$r.log 2>&1
    echo "== vacate=$v run $r rc=$? ($(( $(date +%s)-t0 ))s)"
    grep -E "^(baton-time|baton-space) " $L/v$v-$r.log | cut -c1-80
  done
done
echo "total $(( $(date +%s)-t0 ))s"
