#!/usr/bin/env bash
# Forty-first session, call i: forms of the claim loop around a recursive
# callee, compiled by nvcc 13.0 at its default optimisation
# (fib_shapes.cu); which ones ptxas gets right.
set -u
cd "$(dirname "$0")/../../.."
L=$OUT/i; mkdir -p $L
D=docs/data/h100-2026-11-27e
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
/usr/local/cuda/bin/nvcc -arch=sm_90 $D/fib_shapes.cu -o $L/fib_shapes > $L/nvcc.log 2>&1 || { cat $L/nvcc.log; exit 1; }
for shape in plain volatile shfl noinline fence parity; do
  for workers in 1 3; do
    out=$(timeout 6 $L/fib_shapes 128 $workers $shape 2>&1); echo "$shape workers=$workers rc=$? | $out"
  done
done | tee $L/fib.txt
rm -f $L/fib_shapes
cd $OUT && tar czf i.tgz i && rm -rf i
