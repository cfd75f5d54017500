#!/usr/bin/env bash
# Fifty-eighth session, call d (an H200): an experiment, not kept. The
# scheduler's windows capped at 64 launches ahead instead of half the
# hardware queues (BATON_EXPERIMENT_MAX_AHEAD, a patch to
# SchedulerRuntime.cpp that only this call's library had), so that a
# quiet training step's 32 launches are all issued running on their
# stream, none paused behind the window: alone_ab.py, three rounds.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
timeout 400 python3 docs/data/h200-2026-11-29b/alone_ab.py \
  $R/build/bench/colocation/libbaton_train_mlp.so 3 $L baton \
  ahead-64-experiment all-originals-ahead-64-experiment 2>&1 | tee $L/alone_ab.log
gzip -f $L/trace-*.txt
cd $OUT && tar czf d.tgz d && rm -rf d
