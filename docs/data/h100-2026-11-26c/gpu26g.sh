#!/usr/bin/env bash
# Twenty-sixth session, call g (H100): lingering bracket ends again, at 50%
# load only, 5 rounds each, BATON_LC_LINGER_US 0, 200 and 100 interleaved
# twice, same arrivals (issue 5).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/g; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
LIB=$R/build-scratch/coloc-new/libbaton_train_mlp.so
cd bench/colocation
i=0
for l in 0 200 100 0 200 100; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 50 ] || break
  i=$((i+1))
  BATON_LC_LINGER_US=$l timeout $left python3 colocate.py --lib $LIB --out $L/coloc-$i-$l --models bert --systems alone,baton-time --loads 0.5 --rounds 5 --window 2 --service-ms bert=0.30 --deadline $((left-10)) > $L/coloc-$i-$l.log 2>&1
  echo "$i linger $l rc=$? $(( $(date +%s)-t0 ))s: $(sed -n '/==== colocation/,$p' $L/coloc-$i-$l.log | grep -E "alone's|baton-time " | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf g.tgz g && rm -rf g
