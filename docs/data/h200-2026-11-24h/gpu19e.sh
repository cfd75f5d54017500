#!/usr/bin/env bash
# Nineteenth session: the quiet window of launches ahead, 4 (default) against 16, with one-wave originals.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/e; mkdir -p $L
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-19
[ -d build-torch ] || { cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1; }
BATON_LAUNCHES_AHEAD_QUIET=16 BATON_TRACE=1 timeout 200 python3 build-scratch/ktime.py --scale large > $L/ktime-16.log 2> $L/trace-16.log; echo "ktime rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime-16.log | head -12
echo "mm_t_6 launches by form:"; grep "launch .*mm_t_6'" $L/trace-16.log | sed -E "s/.*form ([0-9]+).*/form \1/" | sort | uniq -c
echo "all launches by form:"; grep -E "launch [0-9]+ '" $L/trace-16.log | sed -E "s/.*form ([0-9]+).*/form \1/" | sort | uniq -c
echo "paused starts: $(grep -E "launch [0-9]+ '" $L/trace-16.log | grep -c start-paused)"
gzip $L/trace-16.log
for i in 1 2; do for q in 4 16; do
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 70 ] || break
BATON_LAUNCHES_AHEAD_QUIET=$q timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-q$q-$i.log 2>&1; echo "rt q$q $i rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-q$q-$i.log
done; done
cd $OUT && tar czf e.tgz e && rm -rf e
