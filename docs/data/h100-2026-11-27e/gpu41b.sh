#!/usr/bin/env bash
# Forty-first session, call b: call a found recursive_fib's PTB variant
# WRONG with one worker (not only hung with three), and no bar.warp.sync
# placement mended it. Which blocks go wrong, whether the same loop
# written in CUDA and compiled by nvcc goes wrong too (fib_loop.cu), and
# whether the body's declarations' place matters (the `hoisted` form).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
D=$R/docs/data/h100-2026-11-27e
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
g++ -std=c++20 -O2 -I include -I /usr/local/cuda/include $D/fib_check.cpp -o $L/fib_check -L/usr/local/cuda/lib64/stubs -lcuda -lpthread || exit 1
/usr/local/cuda/bin/nvcc -arch=sm_90 -O2 $D/fib_loop.cu -o $L/fib_loop > $L/nvcc.log 2>&1 || { cat $L/nvcc.log; exit 1; }
/usr/local/cuda/bin/cuobjdump -sass $L/fib_loop > $L/fib_loop.sass 2>&1
python3 $D/fib_variants.py $R/docs/data/h100-2026-11-27d/d/calls-nvcc-xformed.ptx $L || exit 1
{
for threads in 128 32; do
  for workers in 1 3 97; do
    out=$(timeout 20 $L/fib_loop $threads $workers 2>&1); echo "cuda-loop threads=$threads workers=$workers rc=$? | $out"
  done
done
for form in asis hoisted; do
  for threads in 128 32; do
    for workers in 1 97; do
      out=$(timeout 20 $L/fib_check $L/$form.ptx $threads $workers 2>&1); echo "$form threads=$threads workers=$workers rc=$? | $out"
    done
  done
done
} 2>&1 | tee $L/fib.txt
rm -f $L/fib_check $L/fib_loop $L/*.ptx
cd $OUT && tar czf b.tgz b && rm -rf b
