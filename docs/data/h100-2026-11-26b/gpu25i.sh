#!/usr/bin/env bash
# Twenty-fifth session, call i (H100): brackets posted to the scheduler's
# thread, with and without the BE host gate (BATON_BE_GATE_MAX_MS=0 turns it
# off): reqphases.py time mode three times each, and colocate.py, bert,
# 10% and 50% load, 3 rounds, same arrivals (issue 5).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/i; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
LIB=$R/build-scratch/coloc/libbaton_train_mlp.so
i=0
for g in 100 0 100 0 100 0; do
  i=$((i+1))
  BATON_BE_GATE_MAX_MS=$g timeout 40 python3 -X faulthandler build-scratch/probe/reqphases.py $LIB time 4 > $L/rp-$i-gate$g.log 2>&1
  echo "rp $i gate=$g rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'mode|lc_begin|graph|synchron|lc_end|latency' $L/rp-$i-gate$g.log | tr -s ' ' | tr '\n' ';')"
done
for g in 100 0; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  (cd bench/colocation && BATON_BE_GATE_MAX_MS=$g timeout $left python3 colocate.py --lib $LIB --out $L/coloc-gate$g --models bert --systems alone,baton-time --loads 0.1,0.5 --rounds 3 --window 2 --service-ms bert=0.28 --deadline $((left-15)) > $L/coloc-gate$g.log 2>&1)
  echo "colocate gate=$g rc=$? $(( $(date +%s)-t0 ))s"; sed -n '/==== colocation/,$p' $L/coloc-gate$g.log | grep -E 'bert|baton-time|target' | head -6
done
cd $OUT && tar czf i.tgz i && rm -rf i
