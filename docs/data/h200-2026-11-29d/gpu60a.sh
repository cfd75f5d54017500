#!/usr/bin/env bash
# Sixtieth session, call a (an H200): where the slow requests of the prompt
# climb (BATON_PROMPT_FROM_PAUSES=1) come from. colocate.py as the
# fifty-ninth session's call f (baton-time; bert then cnn, 10% then 50%
# load, 2 s windows), traced (BATON_TRACE=1), four rounds with the climb on
# and two with it off; bench/colocation/slow_requests.py takes each run's
# slowest requests apart. Carries .deps and build/bench/colocation.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
git rev-parse HEAD > $L/commit.txt 2>/dev/null
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
for run in on-1 off-1 on-2 on-3 off-2 on-4; do
  ENV=(BATON_TRACE=1); [ ${run%-*} = on ] && ENV+=(BATON_PROMPT_FROM_PAUSES=1)
  D=$L/$run
  env "${ENV[@]}" timeout 60 python3 bench/colocation/colocate.py --lib $LIB \
    --out $D --systems baton-time --loads 0.1,0.5 --window 2 --rounds 1 \
    --service-ms bert=0.32,cnn=0.91 > $D.log 2>&1
  echo "$run rc=$? $(( $(date +%s)-t0 ))s"
  zcat -f $D/children.log* > $D/trace.txt 2>/dev/null
  python3 bench/colocation/slow_requests.py $D/trace.txt --results $D/results.json \
    --top 6 --lines 70 > $D/slow.txt 2>&1
  grep '^####' $D/slow.txt
  grep -c 'drain of' $D/trace.txt
  gzip -f $D/trace.txt; rm -f $D/children.log* $D/latencies.json*
done
cd $OUT && tar czf a.tgz a --exclude='*/trace.txt.gz' && ls -la a.tgz
# The largest trace of a run with the climb on, for a closer look.
big=$(ls -S a/on-*/trace.txt.gz | head -1); ls -la $big
[ $(stat -c %s $big) -lt 15000000 ] && cp $big trace-$(basename $(dirname $big)).txt.gz; ls -la $OUT
rm -rf $OUT/a
