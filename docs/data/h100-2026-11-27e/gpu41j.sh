#!/usr/bin/env bash
# Forty-first session, call j: a claim with no branch around a recursive
# callee (every thread adds to the cursor), compiled by nvcc 13.0 at its
# default optimisation (fib_shapes.cu), against call i's plain form.
set -u
cd "$(dirname "$0")/../../.."
L=$OUT/j; mkdir -p $L
D=docs/data/h100-2026-11-27e
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
/usr/local/cuda/bin/nvcc -arch=sm_90 $D/fib_shapes.cu -o $L/fib_shapes > $L/nvcc.log 2>&1 || { cat $L/nvcc.log; exit 1; }
for shape in plain allatomic; do
  for workers in 1 3; do
    out=$(timeout 6 $L/fib_shapes 128 $workers $shape 2>&1); echo "$shape workers=$workers rc=$? | $out"
  done
done | tee $L/fib.txt
/usr/local/cuda/bin/cuobjdump -sass $L/fib_shapes > $L/fib_shapes.sass 2>&1
rm -f $L/fib_shapes
cd $OUT && tar czf j.tgz j && rm -rf j
