#!/usr/bin/env bash
# The placement probe of docs/benchmarks.md ("Where a vacating launch's
# workers run"), on a machine with an NVIDIA GPU and nvcc:
#   bench/vacate_placement/run.sh
# Two rounds of eight scenarios each, for blocks of 20 us and of 100 us.
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
bin=${TMPDIR:-/tmp}/baton_placement_probe
"$nvcc" -arch=native -O3 -std=c++17 placement_probe.cu -o "$bin"
for us in 20 100; do
  timeout 60 "$bin" "$us" || echo "failed or timed out: $us us"
done
