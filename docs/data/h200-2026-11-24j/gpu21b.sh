#!/usr/bin/env bash
# Twenty-first session: early claims (BATON_TASK_PREFETCH) for routed PTB launches, experiment.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/b; mkdir -p $L
git log --oneline -1 > $L/commit.txt; git diff > $L/diff.txt
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-21
for p in 1 0; do
BATON_PTB_PREFETCH=$p timeout 200 python3 build-scratch/ktime.py --scale large > $L/ktime-p$p.log 2>&1; echo "ktime p=$p rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime-p$p.log | head -14
done
for i in 1 2; do for p in 1 0; do
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 60 ] || break
BATON_PTB_PREFETCH=$p timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-p$p-$i.log 2>&1; echo "rt p=$p $i rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-p$p-$i.log
done; done
rm -f $L/tbuild.log
