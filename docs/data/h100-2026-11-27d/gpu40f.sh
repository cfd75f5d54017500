#!/usr/bin/env bash
# Fortieth session, call f: where recursive_fib's PTB variant hangs
# (fib_probe.cpp with the task and output in mapped host memory): blocks of
# 128 and of 32 threads, and the module with its barrier.sync spelled
# bar.sync.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
D=$R/docs/data/h100-2026-11-27d
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
g++ -std=c++20 -O2 -I include -I /usr/local/cuda/include $D/fib_probe.cpp -o $L/fib_probe -L/usr/local/cuda/lib64/stubs -lcuda -lpthread || exit 1
cp $D/d/calls-nvcc-xformed.ptx $L/calls.ptx
sed 's/barrier\.sync 0;/bar.sync 0;/' $L/calls.ptx > $L/calls-bar.ptx
for run in "calls.ptx plain 128" "calls.ptx plain 32" "calls-bar.ptx plain 128" "calls-bar.ptx plain 32"; do
  set -- $run
  echo "== $run"; timeout 30 $L/fib_probe $L/$1 $2 $3 | grep -E 'ptb|cursor|original:'; echo "rc=${PIPESTATUS[0]}"
done 2>&1 | tee $L/probe.log
rm -f $L/fib_probe $L/*.ptx
cd $OUT && tar czf f.tgz f && rm -rf f
