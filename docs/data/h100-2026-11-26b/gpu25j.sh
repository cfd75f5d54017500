#!/usr/bin/env bash
# Twenty-fifth session, call j (H100): the hang seen twice in reqphases'
# time mode (calls f and i) with brackets posted to the scheduler's thread:
# many runs; on one still running after 30 s, every Python thread's stack
# (SIGUSR1) and each native thread's kernel wait channel, then the trace.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/j; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
LIB=$R/build-scratch/coloc/libbaton_train_mlp.so
for i in $(seq 1 16); do
  left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 45 ] || break
  python3 build-scratch/probe/reqphases.py $LIB time 3 > $L/rp-$i.log 2>&1 &
  pid=$!
  for s in $(seq 1 60); do sleep 0.5; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "run $i: still running after 30 s"
    for t in /proc/$pid/task/*; do echo "$(basename $t) $(cat $t/comm) wchan=$(cat $t/wchan) $(cut -d' ' -f3 $t/stat)"; done > $L/tasks-$i.txt
    kill -USR1 $pid; sleep 2; kill -9 $pid
    wait $pid 2>/dev/null
    cat $L/tasks-$i.txt; grep -v -i warn $L/rp-$i.log | tail -60
    break
  fi
  wait $pid; echo "run $i rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'latency' $L/rp-$i.log | tr -s ' ')"
done
cd $OUT && tar czf j.tgz j && rm -rf j
