#!/usr/bin/env bash
# Twenty-eighth session, call f (H100): the mixed-size ordering probe
# (f/mixed_size_probe.cu). Usage: bash docs/data/h100-2026-11-26e/gpu28f.sh
set -u
cd "$(dirname "$0")/f"
L=$OUT/f; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90a -o /tmp/msp mixed_size_probe.cu -lcuda 2>&1 | tail -5
for i in 1 2 3; do timeout 60 /tmp/msp | tee -a $L/probe.log | tail -2; done

cd $OUT && tar czf f.tgz f && rm -rf f
