#!/usr/bin/env bash
# The claim-starvation probe of docs/benchmarks.md ("Why full occupancy
# costs a block"), on a machine with an NVIDIA GPU and nvcc:
#   bench/claim_starvation/run.sh
# Each line: 40 pauses of one launch of workers (all resident, one SM slot
# left for the watcher), flag raised 2-5 ms after the launch.
set -euo pipefail
cd "$(dirname "$0")"
bin=${TMPDIR:-/tmp}/baton_preempt_probe
nvcc -arch=sm_90 -O3 preempt_probe.cu -o "$bin"
# Lazy loading would load the memset kernel while the workers spin.
export CUDA_MODULE_LOADING=EAGER
for args in "50000 16 1 0 128" "50000 16 32 0 128" "50000 16 1 1 128" \
            "50000 16 1 2 128" "50000 16 1 3 128" "50000 16 1 4 128" \
            "200000 16 1 0 128" "200000 16 1 2 128" "200000 16 1 4 128" \
            "50000 4 1 0 128" "5000 16 1 0 128"; do
  timeout 30 "$bin" $args || echo "failed or timed out: $args"
done
