#!/usr/bin/env bash
# Fifty-eighth session, call a (an H200): where the colocation MLP's
# training alone loses its 8% under Baton (alone_ab.py: settings rotated
# over three rounds, one process per run), and 0.3 s of the scheduler's
# trace. Carries build/bench/colocation (the MLP built here with the clang
# plugin).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
git rev-parse HEAD > $L/commit.txt 2>/dev/null
timeout 500 python3 docs/data/h200-2026-11-29b/alone_ab.py \
  $R/build/bench/colocation/libbaton_train_mlp.so 3 $L/trace.txt 2>&1 | tee $L/alone_ab.log
gzip -f $L/trace.txt
cd $OUT && tar czf a.tgz a && rm -rf a
