#!/usr/bin/env bash
# The launch-chain and stream-wait probes of docs/benchmarks.md, on a machine with an NVIDIA
# GPU and nvcc:   bench/launch_chain_probe/run.sh
set -euo pipefail
cd "$(dirname "$0")"
bin=${TMPDIR:-/tmp}/baton_chain_probe
nvcc -O2 -arch=sm_90 chain_probe.cu -lcuda -o "$bin"
timeout 200 "$bin"
# Whether a stream blocked in a wait holds up work on other streams.
nvcc -O2 -arch=sm_90 wait_probe.cu -lcuda -o "$bin-wait"
for connections in 8 32; do
  CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=$connections \
    timeout 60 "$bin-wait"
done
