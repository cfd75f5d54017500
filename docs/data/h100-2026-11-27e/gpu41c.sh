#!/usr/bin/env bash
# Forty-first session, call c: call b's CUDA control (a claim loop with
# barriers, compiled by nvcc) went wrong from its second block as Baton's
# PTB variant does. Is it the loop or the barrier? A grid-stride loop, with
# and without a __syncthreads() after each body, and the original checked
# against the host's arithmetic.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
D=$R/docs/data/h100-2026-11-27e
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
/usr/local/cuda/bin/nvcc --version | tail -2 > $L/nvcc.txt
/usr/local/cuda/bin/nvcc -arch=sm_90 -O2 $D/fib_loop.cu -o $L/fib_loop > $L/nvcc.log 2>&1 || { cat $L/nvcc.log; exit 1; }
/usr/local/cuda/bin/nvcc -arch=sm_90 -O2 -Xptxas -O0 $D/fib_loop.cu -o $L/fib_loop_O0 >> $L/nvcc.log 2>&1 || { cat $L/nvcc.log; exit 1; }
for bin in fib_loop fib_loop_O0; do
  for loop in claim stride stride-sync; do
    for threads in 128 32; do
      for workers in 1 3; do
        out=$(timeout 20 $L/$bin $threads $workers $loop 2>&1); echo "$bin $loop threads=$threads workers=$workers rc=$? | $out"
      done
    done
  done
done 2>&1 | tee $L/fib.txt
rm -f $L/fib_loop $L/fib_loop_O0
cd $OUT && tar czf c.tgz c && rm -rf c
