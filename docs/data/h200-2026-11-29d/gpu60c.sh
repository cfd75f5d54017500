#!/usr/bin/env bash
# Sixtieth session, call c (an H200): where a request's time goes with
# brackets that stop BE work on the caller's thread (preemptAtBegin, on)
# and without (BATON_PREEMPT_AT_BEGIN=0): request_phases.py, mode time,
# bert and cnn at 10% and 50% load, 4 s each, two rounds, the settings in
# turn. Carries .deps and build/bench/colocation.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
for round in 1 2; do
  for model in bert cnn; do
    for load in 0.1 0.5; do
      for S in on off; do
        ENV=(); [ $S = off ] && ENV=(BATON_PREEMPT_AT_BEGIN=0)
        F=$L/$model-$load-$S-r$round.txt
        (cd bench/colocation && env "${ENV[@]}" timeout 40 python3 request_phases.py --lib $LIB \
          --mode time --model $model --load $load --seconds 4) > $F 2>&1
        echo "== $model $load $S r$round rc=$? $(( $(date +%s)-t0 ))s"
        grep -E 'lc_begin|launch|synchronize|request|device' $F | head -6
      done
    done
  done
done
cd $OUT && tar czf c.tgz c && rm -rf c
