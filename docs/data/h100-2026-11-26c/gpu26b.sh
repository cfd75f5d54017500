#!/usr/bin/env bash
# Twenty-sixth session, call b (H100): does the scheduler's thread slow the
# LC request's own launch? request_phases.py at 10% load: alone, alone with
# the 32 hardware queues that BATON_SCHEDULE asks for, and bracket and time
# modes with main's library (head: polls every 2 us while work is
# outstanding) and the candidate (new: sleeps on its bell while all work
# waits for a bracket), interleaved; then colocate.py bert at 10% and 50%
# load, head against new, same arrivals (issue 5).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
lib() { echo $R/build-scratch/coloc-$1/libbaton_train_mlp.so; }
cd bench/colocation
i=0
for r in 1 2; do
  for c in alone:head alone32:head bracket:head bracket:new time:head time:new; do
    m=${c%%:*}; v=${c##*:}; env=""; i=$((i+1))
    [ $m = alone32 ] && { m=alone; env="CUDA_DEVICE_MAX_CONNECTIONS=32"; }
    env $env timeout 40 python3 -u request_phases.py --lib $(lib $v) --mode $m --load 0.1 --seconds 4 > $L/rp-$i-${c/:/-}.log 2>&1
    echo "rp $i $c rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'launch|latency' $L/rp-$i-${c/:/-}.log | tr -s ' ' | tr '\n' ';')"
  done
done
for v in head new; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  timeout $left python3 colocate.py --lib $(lib $v) --out $L/coloc-$v --models bert --systems alone,baton-time --loads 0.1,0.5 --rounds 3 --window 2 --service-ms bert=0.28 --deadline $((left-15)) > $L/coloc-$v.log 2>&1
  echo "colocate $v rc=$? $(( $(date +%s)-t0 ))s"; sed -n '/==== colocation/,$p' $L/coloc-$v.log | grep -E 'bert|baton-time|target' | head -6
done
cd $OUT && tar czf b.tgz b && rm -rf b
