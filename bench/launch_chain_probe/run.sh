#!/usr/bin/env bash
# The launch-chain probe of docs/benchmarks.md, on a machine with an NVIDIA
# GPU and nvcc:   bench/launch_chain_probe/run.sh
set -euo pipefail
cd "$(dirname "$0")"
bin=${TMPDIR:-/tmp}/baton_chain_probe
nvcc -O2 -arch=sm_90 chain_probe.cu -lcuda -o "$bin"
timeout 200 "$bin"
