#!/usr/bin/env bash
# Thirty-sixth session, call e: the default bound (100 us) with the final
# scheduler (new) against the library before the session (old, 6ea7c74):
# baton-time at 50% load, 3 s windows, alone in each round, three rounds
# interleaved, the same arrivals everywhere.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
D=$R/docs/data/h100-2026-11-26m
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
NEW=$R/build/bench/colocation/libbaton_train_mlp.so
OLD=$R/build-scratch/old-mlp/libbaton_train_mlp.so
cd bench/colocation
for r in 1 2 3; do
  for T in alone old-100 new-100; do
    case $T in
      alone) LIB=$NEW; SYS=alone ;;
      old-*) LIB=$OLD; SYS=baton-time ;;
      new-*) LIB=$NEW; SYS=baton-time ;;
    esac
    timeout 100 python3 colocate.py --lib $LIB --out $L/r$r-$T --rounds 1 --deadline 90 --window 3 --loads 0.5 --service-ms bert=0.31,cnn=0.92 --systems $SYS > $L/r$r-$T.log 2>&1
    echo "round $r $T rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-$T/latencies.json $L/r$r-$T/children.log
  done
done
python3 $D/summary.py $L
cd $OUT && tar czf e.tgz e && rm -rf e
