#!/usr/bin/env bash
# Twenty-fifth session, call h (H100): brackets on the caller's thread (head),
# posted to the scheduler's thread (new), and begin on the caller's thread
# with the end posted (syncbegin, an experiment): colocate.py, bert, 10% and
# 50% load, 3 rounds, with the same service time for every variant (so the
# same arrivals), and reqphases.py's time mode twice each (issue 5).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/h; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
lib() { case $1 in head) echo $R/build-scratch/coloc-head/libbaton_train_mlp.so;; new) echo $R/build-scratch/coloc/libbaton_train_mlp.so;; syncbegin) echo $R/build-scratch/coloc-syncbegin/libbaton_train_mlp.so;; esac; }
i=0
for v in head new syncbegin new head syncbegin; do
  i=$((i+1))
  timeout 40 python3 -X faulthandler build-scratch/probe/reqphases.py $(lib $v) time 4 > $L/rp-$i-$v.log 2>&1
  echo "rp $i $v rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'lc_begin|lc_end|latency' $L/rp-$i-$v.log | tr -s ' ' | tr '\n' ';')"
done
for v in head new syncbegin; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  (cd bench/colocation && timeout $left python3 colocate.py --lib $(lib $v) --out $L/coloc-$v --models bert --systems alone,baton-time --loads 0.1,0.5 --rounds 3 --window 2 --service-ms bert=0.28 --deadline $((left-15)) > $L/coloc-$v.log 2>&1)
  echo "colocate $v rc=$? $(( $(date +%s)-t0 ))s"; sed -n '/==== colocation/,$p' $L/coloc-$v.log | grep -E 'bert|baton-time|target' | head -6
done
cd $OUT && tar czf h.tgz h && rm -rf h
