#!/usr/bin/env bash
# Twenty-first session: experiment, a PTB worker's first block is begin + %ctaid.x (claims offset by the workers).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/c; mkdir -p $L
git log --oneline -1 > $L/commit.txt; git diff > $L/diff.txt
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python
BATON_EXP_STATIC_FIRST=1 BATON_CACHE_DIR=/tmp/bcache-21x timeout 280 python3 build-scratch/ktime.py --scale large > $L/ktime-x.log 2>&1; echo "ktime x rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime-x.log | head -16
for i in 1 2; do for x in 1 0; do
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 60 ] || break
if [ $x = 1 ]; then export BATON_EXP_STATIC_FIRST=1 BATON_CACHE_DIR=/tmp/bcache-21x; else unset BATON_EXP_STATIC_FIRST; export BATON_CACHE_DIR=/tmp/bcache-21; fi
timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-x$x-$i.log 2>&1; echo "rt x=$x $i rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-x$x-$i.log
done; done
rm -f $L/tbuild.log
