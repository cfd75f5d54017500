#!/usr/bin/env bash
# Fortieth session, call e: recursive_fib's PTB variant outside the runtime
# (fib_probe.cpp, driver API only): alone, and launched while another stream
# waits on a word the host writes 3 s later.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
D=$R/docs/data/h100-2026-11-27d
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
g++ -std=c++20 -O2 -I include -I /usr/local/cuda/include $D/fib_probe.cpp -o $L/fib_probe -L/usr/local/cuda/lib64/stubs -lcuda -lpthread || exit 1
X=$L/calls.ptx; cp $D/d/calls-nvcc-xformed.ptx $X
for mode in plain blocked plain blocked; do
  echo "== $mode"; timeout 30 $L/fib_probe $X $mode; echo "rc=$?"
done 2>&1 | tee $L/probe.log
rm -f $L/fib_probe $X
cd $OUT && tar czf e.tgz e && rm -rf e
