#!/usr/bin/env bash
# bench/preload/run.sh with the MPS pairs folded in.
set -u
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/e; mkdir -p $L
nvidia-smi -L > $L/gpu.txt
STEPS=150 REPS=3 PAIR_SECONDS=10 OUT=$L timeout 560 bench/preload/run.sh > $L/run.log 2>&1; echo "rc=$?"
tail -22 $L/run.log
cd $OUT && tar czf e.tgz e && rm -rf e
