#!/usr/bin/env bash
# Twenty-ninth session, call f (the machine of calls c-e, whose builds it
# reuses): Inductor's LM-head template as PTB, ABI 4 against ABI 5, with the
# SM clock, power and temperature sampled every 100 ms while each
# variant_overhead_runtime process runs (is the 1.02x -> 1.07x of the PTB
# column a clock effect?).
set -u
cd "$(dirname "$0")/../../.."
E=build-scratch/c29; L=$OUT/f; mkdir -p $L
t0=$(date +%s)
ls build-old/x-old/inductor/lmhead.ptx build-gpu/bench/runtime/variant_overhead_runtime > /dev/null || exit 1
i=0
for v in old new old new old new; do
  i=$((i+1))
  if [ $v = old ]; then b=build-old; X=build-old/x-old; else b=build-gpu; X=$E/lm/new; fi
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $L/smi$i-$v.csv 2>&1 &
  S=$!
  timeout 120 $b/bench/runtime/variant_overhead_runtime $E/lm/manifest.txt $X 9 > $L/vo$i-$v.log 2>&1
  kill $S; wait $S 2>/dev/null
  echo "$i $v: $(grep lmhead $L/vo$i-$v.log | awk '{print "orig", $3, "ptb", $6, $7}') | $(awk -F', ' '{c+=$2; p+=$4; n++; if ($2+0<m || m==0) m=$2+0} END {printf "clock mean %.0f min %d MHz, power mean %.0f W over %d samples", c/n, m, p/n, n}' $L/smi$i-$v.csv)"
done
echo "total $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf f.tgz f && rm -rf f
