#!/usr/bin/env bash
# Thirty-eighth session, call f (issue 5; right after e, on the warm machine): two more rounds of call e: a vacated run's blocks timed by
# the workers that stayed (0c19f6b, new) against the library before it
# (df6fe23, old): baton-space (requests bracketed with baton_lc_begin(66),
# training's workers leave SMs 0-65) at 50% load, 3 s windows, alone in each
# round, two rounds interleaved, the same arrivals everywhere; then the
# GPU scheduler tests on the new tree.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
D=$R/docs/data/h100-2026-11-27b
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
NEW=$R/build/bench/colocation/libbaton_train_mlp.so
OLD=$R/build-scratch/old-mlp/libbaton_train_mlp.so
cd bench/colocation
for r in 3 4; do
  for T in alone old-space new-space; do
    case $T in
      alone) LIB=$NEW; SYS=alone ;;
      old-*) LIB=$OLD; SYS=baton-space ;;
      new-*) LIB=$NEW; SYS=baton-space ;;
    esac
    timeout 100 python3 colocate.py --lib $LIB --out $L/r$r-$T --rounds 1 --deadline 90 --window 3 --loads 0.5 --service-ms bert=0.31,cnn=0.92 --systems $SYS > $L/r$r-$T.log 2>&1
    echo "round $r $T rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-$T/latencies.json $L/r$r-$T/children.log
  done
done
python3 $D/summary.py $L
cd $R
cd $OUT && tar czf f.tgz f && rm -rf f
