#!/usr/bin/env bash
# The interposer pair, traced: where does an LC request's time go next to BE?
set -u
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/g; mkdir -p $L
STEPS=20 REPS=1 PAIR_SECONDS=2 OUT=$L timeout 300 bench/preload/run.sh > $L/prep.log 2>&1
tail -12 $L/prep.log
work=$PWD/build-gpu/preload-demo
pre=$PWD/build-gpu/lib/Preload/libbaton_preload.so
py=$(command -v python3)
pair() { # NAME TRAIN-ENV...
  local name=$1; shift
  local reg=/b12g-$name
  rm -f $L/$name.stop
  env LD_PRELOAD=$pre BATON_CACHE_DIR=$work/cache BATON_SHARE_REGISTRY=$reg BATON_SCHEDULE=best-effort "$@" \
    $work/train --seconds 30 --stop-file $L/$name.stop --json $L/$name-train.json > $L/$name-train.log 2> $L/$name-train.err &
  local tp=$!
  sleep 3
  env LD_PRELOAD=$pre BATON_CACHE_DIR=$work/cache BATON_SHARE_REGISTRY=$reg BATON_SCHEDULE=latency-critical \
    timeout 60 $py bench/preload/infer.py --seconds 8 --rate 50 --json $L/$name-infer.json > $L/$name-infer.log 2>&1
  touch $L/$name.stop; wait $tp
  echo "$name: $(grep '^infer:' $L/$name-infer.log) | $(grep '^train:' $L/$name-train.log $L/$name-train.err | head -1)"
}
pair traced BATON_TRACE=1
pair plain-linger X=1
pair linger0 BATON_SHARE_LINGER_US=0
pair linger2000 BATON_SHARE_LINGER_US=2000
gzip $L/traced-train.err
cd $OUT && tar czf g.tgz g && rm -rf g
