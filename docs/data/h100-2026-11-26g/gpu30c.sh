#!/usr/bin/env bash
# Thirtieth session, call c (issue 5): does the scheduler thread's polling
# slow the request's own driver calls? The service thread polls every ~2 us
# while BE work is outstanding, and during a request the BE launches that
# are pausing (or issued paused behind the queue's head) are polled with
# cuEventQuery all along. BATON_POLL_INTERVAL_US sets the thread's
# PollInterval. The MLP library (main plus that knob) was built here with
# the clang plugin and carried (build-scratch/c30).
#  1. request_phases.py, bert at 10% load: alone, then time sharing with
#     the interval at 0 (default), 20 and 50 us; two processes each,
#     interleaved.
#  2. colocate.py, bert at 50% load, alone + baton-time, interval 0 and 20
#     alternating, three rounds each, same arrivals (--service-ms).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
LIB=$R/build-scratch/c30/libbaton_train_mlp.so
cd bench/colocation
i=0
for run in alone t0 t20 t50 alone t0 t20 t50; do
  i=$((i+1))
  case $run in alone) mode=alone; poll=0;; *) mode=time; poll=${run#t};; esac
  BATON_POLL_INTERVAL_US=$poll timeout 60 python3 -u request_phases.py --lib $LIB --mode $mode --model bert --load 0.1 --seconds 4 > $L/rp-$i-$run.log 2>&1
  echo "== $i $run rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "launch|latency|lc_begin|device" $L/rp-$i-$run.log | tr -s ' ' | head -5
done
j=0
for poll in 0 20 0 20; do
  left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  j=$((j+1))
  BATON_POLL_INTERVAL_US=$poll timeout $left python3 colocate.py --lib $LIB --out $L/coloc-$j-$poll --models bert --systems alone,baton-time --loads 0.5 --rounds 3 --service-ms bert=0.30 --deadline $((left-10)) > $L/coloc-$j-$poll.log 2>&1
  echo "== coloc $j poll $poll rc=$? $(( $(date +%s)-t0 ))s: $(sed -n '/==== colocation/,$p' $L/coloc-$j-$poll.log | grep -E "alone's|baton-time " | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf c.tgz c && rm -rf c
