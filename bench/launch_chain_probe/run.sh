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
# How many waiting streams stall the device (blockers created first, then
# alternately with the other streams). With 8 connections it stops on its
# alarm once 8 streams wait: nothing else starts.
nvcc -O2 -arch=sm_90 blocked_probe.cu -lcuda -o "$bin-blocked"
for connections in 8 32; do
  for alternate in 0 1; do
    CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=$connections \
      timeout 60 "$bin-blocked" $alternate || true
  done
done
# Which driver calls wait for a stream blocked on the device: stream
# creation does, from the 35th stream on (it stops on its alarm there).
nvcc -O2 -arch=sm_90 create_probe.cu -lcuda -o "$bin-create"
for connections in 32 8; do
  CUDA_DEVICE_MAX_CONNECTIONS=$connections timeout 60 "$bin-create" || true
done
