#!/usr/bin/env bash
# Twenty-first session: training alone, large GPT, five processes in a row (issue 6's 97% check).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/a; mkdir -p $L
git log --oneline -1 > $L/commit.txt; git diff --stat > $L/diffstat.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $L/gpu.txt 2>&1
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-21
for i in 1 2 3 4 5; do
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 60 ] || break
timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-$i.log 2>&1; echo "rt $i rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-$i.log
done
rm -f $L/tbuild.log
