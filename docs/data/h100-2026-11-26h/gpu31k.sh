#!/usr/bin/env bash
# Thirty-first session, call k: call j's check_training.py stopped in
# gpt-dyn's preempted run (no result for 5 minutes, where it takes about a
# second). gpt-dyn alone, three times, each process aborted after 100 s
# with every Python thread's stack dumped (faulthandler on SIGABRT).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/k; mkdir -p $L
t0=$(date +%s)
export PYTHONPATH=$R/build-torch/python
for i in 1 2 3; do
  BATON_CACHE_DIR=$L/cache timeout -s ABRT 100 python3 -X faulthandler bench/torch/check_training.py --models gpt-dyn --out $L > $L/dyn$i.log 2>&1; echo "run $i rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "gpt-dyn: (routed|preempted)|PASS|FAIL" $L/dyn$i.log | cut -c1-200 | head -4
  [ $(( $(date +%s)-t0 )) -gt 170 ] && break
done
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf k.tgz k && rm -rf k
