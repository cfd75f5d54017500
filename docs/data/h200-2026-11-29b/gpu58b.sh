#!/usr/bin/env bash
# Fifty-eighth session, call b (an H200): alone_ab.py over the settings that
# call a left unexplained (a window of 16 with and without every launch the
# original), three rounds, and each one's trace.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
timeout 500 python3 docs/data/h200-2026-11-29b/alone_ab.py \
  $R/build/bench/colocation/libbaton_train_mlp.so 3 $L baton all-originals \
  ahead-16 all-originals-ahead-16 ahead-16-no-device-times 2>&1 | tee $L/alone_ab.log
gzip -f $L/trace-*.txt
cd $OUT && tar czf b.tgz b && rm -rf b
