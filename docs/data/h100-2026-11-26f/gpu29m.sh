#!/usr/bin/env bash
# Twenty-ninth session, call m: issue 5's colocation at 50% load, Baton
# space sharing, the MLP training library built from main (task ABI 4) and
# from branch claim-one-atomic (task ABI 5, its scheduler counting a vacate
# as two claims), each built on the CPU machine with its own plugin and
# carried (build-scratch/c29/coloc-main, coloc-abi5). One round per
# colocate.py process, the two libraries alternating.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/m; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
i=0
for t in main abi5 main abi5 main abi5; do
  left=$(( 540 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  i=$((i+1))
  LIB=$R/build-scratch/c29/coloc-$t/libbaton_train_mlp.so
  (cd bench/colocation && timeout $left python3 colocate.py --lib $LIB --out $L/r$i-$t --systems alone,baton-space --loads 0.5 --rounds 1 --deadline $((left-10)) > $L/r$i-$t.log 2>&1)
  echo "$i $t rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "round 1 (alone|baton-space)" $L/r$i-$t.log | sed 's/^.*round 1 //' | cut -c1-170
done
cd $OUT && tar czf m.tgz m && rm -rf m
