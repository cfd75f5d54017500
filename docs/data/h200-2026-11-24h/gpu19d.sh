#!/usr/bin/env bash
# Nineteenth session: where the one-wave launches went (trace), per-kernel times.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/d; mkdir -p $L
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-19
[ -d build-torch ] || { cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1; }
BATON_TRACE=1 timeout 400 python3 build-scratch/ktime.py --scale large > $L/ktime.log 2> $L/trace.log; echo "ktime rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime.log | head -24
echo "launch forms of mm_t_6 (form, start-paused):"
grep "launch .*mm_t_6'" $L/trace.log | sed -E "s/.*form ([0-9]+).*width ([0-9]+).*/form \1 width \2/" | sort | uniq -c
grep "launch .*mm_t_6'" $L/trace.log | grep -c start-paused
echo "all launches by form:"; grep -E "launch [0-9]+ '" $L/trace.log | sed -E "s/.*form ([0-9]+).*/form \1/" | sort | uniq -c
echo "paused starts:"; grep -E "launch [0-9]+ '" $L/trace.log | grep -c start-paused
gzip $L/trace.log
cd $OUT && tar czf d.tgz d && rm -rf d
