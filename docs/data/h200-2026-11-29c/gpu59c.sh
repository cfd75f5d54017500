#!/usr/bin/env bash
# Fifty-ninth session, call c (an H200): is an SM of 24 or 32 resident
# worker warps prompt (a paused worker stops after the block it holds)?
# bench/claim_starvation's probe, 50 us blocks, 40 pauses a line: dense FMAs
# (body 4) and a spin on %globaltimer (body 0), at 16, 24, 32 and 64 warps
# per SM, with 128- and 256-thread workers.
set -u
cd "$(dirname "$0")/../../.."
L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
nvcc -arch=sm_90 -O3 bench/claim_starvation/preempt_probe.cu -o $L/probe > $L/build.log 2>&1 || { cat $L/build.log; exit 1; }
export CUDA_MODULE_LOADING=EAGER
for args in "50000 4 1 4 128" "50000 2 1 4 256" "50000 6 1 4 128" "50000 3 1 4 256" \
            "50000 8 1 4 128" "50000 4 1 4 256" "50000 16 1 4 128" \
            "50000 4 1 0 128" "50000 8 1 0 128" "50000 4 1 0 256" "50000 16 1 0 128" \
            "20000 8 1 4 128" "20000 4 1 4 256" "20000 4 1 4 128"; do
  echo "== $args" | tee -a $L/probe.log
  timeout 60 $L/probe $args 2>&1 | tee -a $L/probe.log | tail -3
done
rm -f $L/probe
cd $OUT && tar czf c.tgz c && rm -rf c
