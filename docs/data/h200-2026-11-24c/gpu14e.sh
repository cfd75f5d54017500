#!/usr/bin/env bash
# #6: the routing threshold against the preemption bound: kernels >= 30, 60
# and 100 us routed, GPT large and bench sizes, ABI 3.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/e; mkdir -p $L
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/build.log 2>&1 && cmake --build build-torch -j 16 --target baton_python >> $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
for scale in large bench; do
  left=$(( 585 - ($(date +%s)-t0) ))
  [ $left -lt 60 ] && { echo "$scale skipped"; continue; }
  timeout $left python3 bench/torch/route_threshold.py --scale $scale --thresholds 30,60,100 --seconds 4 > $L/rt-$scale.log 2>&1
  echo "$scale rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|not' $L/rt-$scale.log | tr -s ' ' | tr '\n' ';')"
done
echo "total $(( $(date +%s)-t0 ))s"
