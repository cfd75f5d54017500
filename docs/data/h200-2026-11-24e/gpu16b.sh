#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
nvcc -O2 -arch=sm_90 bench/launch_chain_probe/create_probe.cu -lcuda -o /tmp/create_probe
for c in 32 8 4; do CUDA_DEVICE_MAX_CONNECTIONS=$c timeout 40 /tmp/create_probe; done
CUDA_MODULE_LOADING=EAGER timeout 40 /tmp/create_probe
