#!/usr/bin/env bash
# Eighteenth session: mm_t_* as slices (same body, hardware's block order) and as PTB without a register budget.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/h; mkdir -p $L
git log --oneline -1 > $L/commit.txt
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
timeout 330 python3 build-scratch/kslice.py --scale large > $L/kslice.log 2>&1; echo "kslice rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/kslice.log | grep -E "device time|mm_t|kernel " | head -8
left=$(( 590 - ($(date +%s)-t0) ))
BATON_FIT_REGISTERS=0 timeout $left python3 build-scratch/ktime.py --scale large > $L/ktime-nobudget.log 2>&1; echo "ktime nobudget rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime-nobudget.log | grep -E "device time|mm_t|kernel " | head -8
cd $OUT && tar czf h.tgz h && rm -rf h
