#!/usr/bin/env bash
# The interposer pair under MPS: inference p50/p99 and training it/s, with and without Baton.
set -u
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/h; mkdir -p $L
STEPS=20 REPS=1 PAIR_SECONDS=2 OUT=$L timeout 300 bench/preload/run.sh > $L/prep.log 2>&1
tail -12 $L/prep.log
work=$PWD/build-gpu/preload-demo
pre=$PWD/build-gpu/lib/Preload/libbaton_preload.so
py=$(command -v python3)
pair() { # NAME MODE(plain|baton)
  local name=$1 mode=$2
  local reg=/b12h-$name tenv=() ienv=()
  if [[ $mode == baton ]]; then
    tenv=(LD_PRELOAD=$pre BATON_CACHE_DIR=$work/cache BATON_SHARE_REGISTRY=$reg BATON_SCHEDULE=best-effort)
    ienv=(LD_PRELOAD=$pre BATON_CACHE_DIR=$work/cache BATON_SHARE_REGISTRY=$reg BATON_SCHEDULE=latency-critical)
  fi
  rm -f $L/$name.stop
  env "${tenv[@]}" X=1 $work/train --seconds 40 --stop-file $L/$name.stop --json $L/$name-train.json > $L/$name-train.log 2>&1 &
  local tp=$!
  sleep 3
  env "${ienv[@]}" X=1 timeout 60 $py bench/preload/infer.py --seconds 10 --rate 50 --json $L/$name-infer.json > $L/$name-infer.log 2>&1
  touch $L/$name.stop; wait $tp
  echo "$name: $(grep '^infer:' $L/$name-infer.log) | $(grep -h '^train:' $L/$name-train.log | head -1)"
}
infer_alone() {
  env "$@" timeout 60 $py bench/preload/infer.py --seconds 10 --rate 50 > $L/alone-$1.log 2>&1
  echo "alone: $(grep '^infer:' $L/alone-$1.log)"
}
export CUDA_MPS_PIPE_DIRECTORY=$L/mps-pipe CUDA_MPS_LOG_DIRECTORY=$L/mps-log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d || { echo "no MPS"; exit 1; }
sleep 1
infer_alone X=1
for r in 1 2; do
  pair mps-plain-$r plain
  pair mps-baton-$r baton
done
echo quit | nvidia-cuda-mps-control
rm -rf $L/mps-pipe
cd $OUT && tar czf h.tgz h && rm -rf h
