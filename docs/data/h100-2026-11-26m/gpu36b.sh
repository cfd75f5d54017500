#!/usr/bin/env bash
# Thirty-sixth session, call b: the preemption bound again, with block
# estimates per occupancy (new) against the library before (old, 6ea7c74).
# baton-time at 50% load, 3 s windows, one round per process, interleaved,
# three rounds, the same arrivals everywhere (--service-ms); then one traced
# process (BATON_TRACE=1, bert) of old and new at 300 us: the widths the
# MLP's kernels ran at and the block time each width measured (widths.py).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
D=$R/docs/data/h100-2026-11-26m
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
NEW=$R/build/bench/colocation/libbaton_train_mlp.so
OLD=$R/build-scratch/old-mlp/libbaton_train_mlp.so
cd bench/colocation
for r in 1 2 3; do
  for T in alone old-100 new-100 new-300 new-1000; do
    case $T in
      alone) LIB=$NEW; SYS=alone; B=100 ;;
      old-*) LIB=$OLD; SYS=baton-time; B=${T#old-} ;;
      new-*) LIB=$NEW; SYS=baton-time; B=${T#new-} ;;
    esac
    BATON_PREEMPTION_BOUND_US=$B timeout 100 python3 colocate.py --lib $LIB --out $L/r$r-$T --rounds 1 --deadline 90 --window 3 --loads 0.5 --service-ms bert=0.31,cnn=0.92 --systems $SYS > $L/r$r-$T.log 2>&1
    echo "round $r $T rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-$T/latencies.json $L/r$r-$T/children.log
  done
done
for T in old new; do
  LIB=$NEW; [ $T = old ] && LIB=$OLD
  BATON_TRACE=1 BATON_PREEMPTION_BOUND_US=300 timeout 100 python3 colocate.py --lib $LIB --out $L/trace-$T --rounds 1 --deadline 90 --window 3 --loads 0.5 --models bert --service-ms bert=0.31 --systems baton-time > $L/trace-$T.log 2>&1
  echo "trace $T rc=$? ($(( $(date +%s)-t0 ))s)"
  gzip -f $L/trace-$T/latencies.json $L/trace-$T/children.log
  echo "== $T, 300 us"; python3 $D/widths.py $L/trace-$T/children.log.gz
done
python3 $D/summary.py $L
cd $OUT && tar czf b.tgz b && rm -rf b
